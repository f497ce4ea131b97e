#!/usr/bin/env python3
"""Validates mpsport JSON reports against docs/schema/report.schema.json.

Usage: validate_report.py SCHEMA REPORT... (python3-jsonschema from Debian). Exits 1 on any invalid report.
"""
import json
import sys

import jsonschema


def main() -> int:
    schema = json.load(open(sys.argv[1]))
    bad = 0
    for path in sys.argv[2:]:
        try:
            jsonschema.validate(json.load(open(path)), schema)
        except (jsonschema.ValidationError, json.JSONDecodeError) as err:
            bad += 1
            print(f"{path}: {getattr(err, 'message', err)}")
    print(f"{len(sys.argv) - 2} reports checked, {bad} invalid")
    return 1 if bad or len(sys.argv) < 3 else 0


if __name__ == "__main__":
    sys.exit(main())
