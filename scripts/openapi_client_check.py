"""Checks the Python client openapi-python-client generated from openapi.json.

Usage: openapi_client_check.py OPENAPI_JSON CLIENT_DIR

Imports every module of the generated package, then reads every example the document gives
for a schema into that schema's generated model and writes it back, and compares the two as
JSON (timestamps as instants, since the client writes `+00:00` where the document has `Z`).
A schema whose example the client cannot read or write back, or that has no model, fails.
"""

import datetime
import importlib
import json
import pkgutil
import re
import sys

# Schemas whose generated class has another name (scripts/openapi-lint/openapi-python-client.yaml).
RENAMED = {"Client": "ClientRecord"}
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def same_json(value):
    """The value with every timestamp as an aware datetime, so that `Z` equals `+00:00`."""
    if isinstance(value, dict):
        return {key: same_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [same_json(item) for item in value]
    if isinstance(value, str) and TIMESTAMP.match(value):
        return datetime.datetime.fromisoformat(value)
    return value


def main(document_path, client_dir):
    with open(document_path, encoding="utf-8") as file:
        document = json.load(file)
    sys.path.insert(0, client_dir)
    package = importlib.import_module("call_handling_service_client")
    modules = [package.__name__]
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)
        modules.append(module.name)
    models = importlib.import_module("call_handling_service_client.models")
    endpoints = [name for name in modules if ".api." in name and name.count(".") == 3]
    operations = sum(
        len(item) for item in document["paths"].values() if isinstance(item, dict)
    )
    if len(endpoints) != operations:
        sys.exit(f"{len(endpoints)} endpoint modules for {operations} operations")

    failures = []
    checked = 0
    for name, schema in document["components"]["schemas"].items():
        examples = schema.get("examples", []) + ([schema["example"]] if "example" in schema else [])
        if not examples:
            continue
        model = getattr(models, RENAMED.get(name, name), None)
        if model is None:
            failures.append(f"{name}: no generated model")
            continue
        for example in examples:
            try:
                written = model.from_dict(example).to_dict()
            except Exception as error:  # the failure itself is the report
                failures.append(f"{name}: the client cannot read its example: {error!r}")
                continue
            if same_json(written) != same_json(example):
                failures.append(f"{name}: read and written back, its example became {written}")
            checked += 1
    for failure in failures:
        print(failure, file=sys.stderr)
    print(
        f"python client: {len(modules)} modules imported ({len(endpoints)} operations), "
        f"{checked} schema examples read and written back, {len(failures)} failures"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
