#!/usr/bin/env python3
"""Inspect and fill AcroForm PDF forms with pypdf (5 or later).

  python fill.py fields FORM.pdf
      Print the form's fields as JSON: name, type, value, states, options.

  python fill.py fill FORM.pdf VALUES.json OUT.pdf [--flatten]
      Write a copy of FORM.pdf with the fields of VALUES.json filled in.
      Exits with status 1 when a name in VALUES.json matches no field.
"""

import argparse
import json
import sys

from pypdf import PdfReader, PdfWriter


def open_reader(path, password):
    reader = PdfReader(path)
    if reader.is_encrypted:
        reader.decrypt(password or "")
    return reader


def describe(reader):
    fields = []
    for name, field in (reader.get_fields() or {}).items():
        entry = {"name": name, "type": field.get("/FT"), "value": field.get("/V")}
        if field.get("/_States_"):
            entry["states"] = list(field["/_States_"])
        if field.get("/Opt"):
            entry["options"] = [o[-1] if isinstance(o, list) else o for o in field["/Opt"]]
        fields.append(entry)
    return fields


def fill(reader, values, out, flatten):
    known = set((reader.get_fields() or {}).keys())
    unknown = sorted(set(values) - known)
    if unknown:
        print("No field named: " + ", ".join(unknown), file=sys.stderr)
        return 1
    writer = PdfWriter(clone_from=reader)
    writer.set_need_appearances_writer(True)
    for page in writer.pages:
        writer.update_page_form_field_values(page, values, auto_regenerate=False, flatten=flatten)
    with open(out, "wb") as handle:
        writer.write(handle)
    print(f"Filled {len(values)} field(s) into {out}" + (" (flattened)" if flatten else ""))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--password", help="password of an encrypted form")
    commands = parser.add_subparsers(dest="command", required=True)
    fields = commands.add_parser("fields", help="list the form's fields as JSON")
    fields.add_argument("form")
    filling = commands.add_parser("fill", help="write a filled copy of the form")
    filling.add_argument("form")
    filling.add_argument("values", help="JSON file mapping field names to values")
    filling.add_argument("out")
    filling.add_argument("--flatten", action="store_true", help="bake the values into the page")
    args = parser.parse_args(argv)

    reader = open_reader(args.form, args.password)
    if args.command == "fields":
        json.dump(describe(reader), sys.stdout, indent=2, default=str)
        print()
        return 0
    with open(args.values, encoding="utf-8") as handle:
        values = json.load(handle)
    return fill(reader, values, args.out, args.flatten)


if __name__ == "__main__":
    sys.exit(main())
