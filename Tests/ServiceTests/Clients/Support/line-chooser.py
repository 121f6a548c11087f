#!/usr/bin/python3
"""A test chooser that speaks the dialogs' message (docs/CONTRACT.md, "The dialogs") around a
shell script written the short way: `line-chooser.py SEEN BODY`. It reads the request (one JSON
line on stdin), appends what it was asked to SEEN — one line per candidate
(`id<TAB>name<TAB>icon`, and `<TAB>kind` for a share), then the question as sorted
`SCHEMEBRIDGE_CHOOSER_*=` lines (`…_PARENT_WINDOW`, `…_RECEIVED_FROM` when the request has them),
then `--` — and runs BODY (a shell script) with those candidate lines on its stdin and the same
variables (and the request's activation token as XDG_ACTIVATION_TOKEN / DESKTOP_STARTUP_ID) in
its environment. BODY prints `ID` or `ID<TAB>always`
and exits 0 to choose, exits 1 (or prints nothing) to cancel; any other exit is passed on with no
answer (a dialog that failed). The answer goes to stdout as the message's JSON line."""
import json
import os
import subprocess
import sys


def field(text):
    plain = "".join(" " if ord(c) < 0x20 or ord(c) == 0x7F else c for c in text)
    return " " + plain if plain.startswith("-") else plain


def main():
    seen, body = sys.argv[1], sys.argv[2]
    request = json.loads(sys.stdin.buffer.readline())
    assert request["version"] == 1, request
    share = request["kind"] == "share"
    lines = ""
    for c in request["candidates"]:
        cols = [field(c["id"]), field(c["name"]), field(c["icon"])] + ([field(c["kind"])] if share else [])
        lines += "\t".join(cols) + "\n"
    variables = {
        "SCHEMEBRIDGE_CHOOSER_SUBJECT": request["subject"],
        "SCHEMEBRIDGE_CHOOSER_KIND": request["kind"],
        "SCHEMEBRIDGE_CHOOSER_CALLER": request["caller"]["id"],
        "SCHEMEBRIDGE_CHOOSER_CALLER_NAME": request["caller"]["name"],
        "SCHEMEBRIDGE_CHOOSER_CAN_REMEMBER": "1" if request["can-remember"] else "0",
    }
    if "title" in request:
        variables["SCHEMEBRIDGE_CHOOSER_TITLE"] = request["title"]
    if "parent-window" in request:
        variables["SCHEMEBRIDGE_CHOOSER_PARENT_WINDOW"] = request["parent-window"]
    if "received-from" in request:
        variables["SCHEMEBRIDGE_CHOOSER_RECEIVED_FROM"] = request["received-from"]
    with open(seen, "a", encoding="utf-8") as f:
        f.write(lines)
        for k in sorted(variables):
            f.write("%s=%s\n" % (k, variables[k]))
        f.write("--\n")
    env = dict(os.environ)
    env.update(variables)
    if share:
        env["SCHEMEBRIDGE_SHARE_TYPES"] = ",".join(request["share"]["types"])
        env["SCHEMEBRIDGE_SHARE_COUNT"] = str(request["share"]["count"])
    if request.get("activation-token"):
        env["XDG_ACTIVATION_TOKEN"] = env["DESKTOP_STARTUP_ID"] = request["activation-token"]
    run = subprocess.run(["/bin/sh", body], input=lines.encode(), stdout=subprocess.PIPE, env=env)
    out = run.stdout.decode("utf-8", "replace").split("\n")[0].split("\t")
    if run.returncode == 0 and out[0].strip():
        answer = {"version": 1, "answer": "chosen", "id": out[0].strip(), "always": len(out) > 1 and out[1].strip() == "always"}
    elif run.returncode in (0, 1):
        answer = {"version": 1, "answer": "cancelled"}
    else:
        sys.exit(run.returncode if run.returncode > 0 else 128 - run.returncode)
    sys.stdout.write(json.dumps(answer) + "\n")


main()
