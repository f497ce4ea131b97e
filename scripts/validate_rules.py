#!/usr/bin/env python3
"""Validates every rule file (rules/<family>/<id>.yaml), package list and rules/program.yaml against its JSON Schema.

Usage: validate_rules.py RULES_DIR. Prints one line per problem, naming the file; exits 1 on any.
Needs Debian's python3-yaml and python3-jsonschema (scripts/install.sh installs both).
"""
import json
import pathlib
import sys

import jsonschema
import yaml


def main() -> int:
    rules = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "rules")
    rule_schema = json.loads((rules / "rule.schema.json").read_text())
    package_schema = json.loads((rules / "packages.schema.json").read_text())
    program_schema = json.loads((rules / "program.schema.json").read_text())
    problems = 0
    checked = 0
    for path in sorted(rules.rglob("*.yaml")):
        family = path.parent.name
        if family == "mps":
            continue
        top_level = path.parent == rules
        schema = program_schema if top_level else package_schema if family == "packages" else rule_schema
        try:
            doc = yaml.safe_load(path.read_text())
            jsonschema.validate(doc, schema)
            if not top_level and family != "packages" and doc["id"] != path.stem:
                raise jsonschema.ValidationError(f"id '{doc['id']}' does not match the file name")
        except (yaml.YAMLError, jsonschema.ValidationError) as err:
            problems += 1
            msg = err.message if isinstance(err, jsonschema.ValidationError) else str(err)
            where = "/".join(str(p) for p in getattr(err, "absolute_path", []))
            print(f"{path}: {where + ': ' if where else ''}{msg}")
        checked += 1
    print(f"{checked} rule files checked, {problems} invalid")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
