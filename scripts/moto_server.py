"""moto in server mode, single-threaded (DESIGN.md section 7).

The stock `moto_server` handles requests on several threads and can lose conditional updates
under concurrency; serving the same WSGI application with threaded=False serialises requests,
so conditional writes and transactions behave as on DynamoDB.

moto's TransactWriteItems backs up the table it writes with one deep copy per item of the
transaction, so a 100-item transaction on a table of n items costs 100 copies of n items; an
import of 1000 clients took 104 s. `copy_each_table_once` keeps the backup (rollback is
unchanged) but makes one copy per table per transaction.

moto's SQS reads `queue.attributes` several times per sent message, and that property counts
the queue's visible messages one timestamp at a time; a batch of ten into a queue of 10,000
messages took 4 s. `cheap_deduplication_check` gives SendMessage and SendMessageBatch only the
attribute they read, ContentBasedDeduplication (GetQueueAttributes is unchanged).

moto's `BaseModel.__new__` appends every model instance it creates to a list on its class (for
its dashboard), so no table, item or queue is ever freed: not a deleted table, and not the table
copies TransactWriteItems makes for rollback, which grew moto by about 2 MB per logged read and
slowed it round by round. `untracked_models` creates models without that list.

`GET /_served` answers how many requests this server has served, for the benchmark's requests
per minute.

usage: python scripts/moto_server.py PORT [HOST]
"""

import copy
import sys
import types

import moto.dynamodb.models as dynamodb_models
import moto.sqs.models as sqs_models
from moto.core.common_models import BaseModel
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple


def copy_each_table_once() -> None:
    backend = dynamodb_models.DynamoDBBackend
    transact = backend.transact_write_items

    def transact_write_items(self, transact_items):
        copies = {}

        def deepcopy_once(value, memo=None):
            # Keyed by identity, with the original kept alive so its id cannot be reused.
            key = id(value)
            if key not in copies:
                copies[key] = (value, copy.deepcopy(value, memo))
            return copies[key][1]

        # Requests are served one at a time, so swapping the module's `copy` is safe.
        dynamodb_models.copy = types.SimpleNamespace(deepcopy=deepcopy_once)
        try:
            return transact(self, transact_items)
        finally:
            dynamodb_models.copy = copy

    backend.transact_write_items = transact_write_items


def untracked_models() -> None:
    def new(cls, *args, **kwargs):
        return object.__new__(cls)

    BaseModel.__new__ = staticmethod(new)


def cheap_deduplication_check() -> None:
    queue_class = sqs_models.Queue
    backend_class = sqs_models.SQSBackend
    full_attributes = queue_class.attributes
    depth = [0]

    def deduplication_only(queue):
        value = getattr(queue, "content_based_deduplication", False)
        return {"ContentBasedDeduplication": str(value).lower() if isinstance(value, bool) else value}

    def with_cheap_attributes(method):
        def wrapper(*args, **kwargs):
            # Requests are served one at a time, so swapping the class property is safe; the
            # depth keeps it swapped while send_message_batch calls send_message.
            depth[0] += 1
            queue_class.attributes = property(deduplication_only)
            try:
                return method(*args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    queue_class.attributes = full_attributes

        return wrapper

    # Sending reads only ContentBasedDeduplication from the attributes.
    backend_class.send_message = with_cheap_attributes(backend_class.send_message)
    backend_class.send_message_batch = with_cheap_attributes(backend_class.send_message_batch)


class CountingApplication:
    """Counts the requests served; `GET /_served` answers the count (and is not counted)."""

    def __init__(self, app):
        self.app = app
        self.served = 0

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == "/_served":
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [str(self.served).encode()]
        self.served += 1
        return self.app(environ, start_response)


def main() -> None:
    port = int(sys.argv[1])
    # scripts/sam-local.sh listens on the Docker bridge's address, which containers reach.
    host = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
    untracked_models()
    copy_each_table_once()
    cheap_deduplication_check()
    app = CountingApplication(DomainDispatcherApplication(create_backend_app))
    run_simple(host, port, app, threaded=False, use_reloader=False, use_debugger=False)


if __name__ == "__main__":
    main()
