"""moto in server mode, single-threaded (DESIGN.md section 7).

The stock `moto_server` handles requests on several threads and can lose conditional updates
under concurrency; serving the same WSGI application with threaded=False serialises requests,
so conditional writes and transactions behave as on DynamoDB.

usage: python scripts/moto_server.py PORT
"""

import sys

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple


def main() -> None:
    port = int(sys.argv[1])
    app = DomainDispatcherApplication(create_backend_app)
    run_simple("127.0.0.1", port, app, threaded=False, use_reloader=False, use_debugger=False)


if __name__ == "__main__":
    main()
