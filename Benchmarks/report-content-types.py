#!/usr/bin/python3
"""Turns Benchmarks/results/content-types.json (ContentTypeBench bench) into the table between
<!-- content-types:begin --> and <!-- content-types:end --> in docs/PERFORMANCE.md, and prints it.
Usage: report-content-types.py JSON PERFORMANCE_MD"""
import datetime, json, os, sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_common  # noqa: E402

data, doc = json.load(open(sys.argv[1])), sys.argv[2]
inst, ext, one = data["installed"], data["extensionless"], data["single_process"]


def ratio(a, b):
    return f"{a / b:.3f}×" if b else "n/a"


rows = [
    (f"installed file under /usr/share, /usr/lib ({inst['files']:.0f} sampled): name, else the first 4 KiB; median per file",
     f"{inst['ours_us']:.1f} µs (p90 {inst['ours_p90_us']:.0f})",
     f"`gio info` {inst['gio_info_us']:.0f} µs, `file --mime-type` {inst['file_mime_type_us']:.0f} µs",
     f"{ratio(inst['ours_us'], inst['gio_info_us'])} gio, {ratio(inst['ours_us'], inst['file_mime_type_us'])} file"),
    (f"extension-less copy ({ext['files']:.0f}): content only; median per file",
     f"{ext['ours_us']:.1f} µs (p90 {ext['ours_p90_us']:.0f})",
     f"`gio info` {ext['gio_info_us']:.0f} µs, `file --mime-type` {ext['file_mime_type_us']:.0f} µs",
     f"{ratio(ext['ours_us'], ext['gio_info_us'])} gio, {ratio(ext['ours_us'], ext['file_mime_type_us'])} file"),
    (f"the same as processes of {data['batch']} files (`ContentTypeBench type`: start, load, type), per file",
     f"{inst['ours_process_us']:.0f} / {ext['ours_process_us']:.0f} µs", "the tools above, same batches",
     f"{ratio(inst['ours_process_us'], inst['gio_info_us'])} / {ratio(ext['ours_process_us'], ext['gio_info_us'])} gio"),
    ("one file a process, p50", f"{one.get('ours_process_ms', 0):.1f} ms",
     f"`gio info` {one.get('gio_info_ms', 0):.1f} ms, `file --mime-type` {one.get('file_mime_type_ms', 0):.1f} ms",
     f"{ratio(one.get('ours_process_ms', 0), one.get('gio_info_ms', 0))} gio"),
    ("by name only (`contentType(forName:)`), median", f"{data['by_name_us']:.2f} µs", "", ""),
    ("database load (`mime.cache` read and checked), median", f"{data['database_load_us']:.0f} µs", "", ""),
]
failures = inst["failures"] + ext["failures"]


header = ["content-type detection", "SchemeBridge", "baseline, same run", "ratio"]
table = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
table += ["| " + " | ".join(r) + " |" for r in rows]
load = os.getloadavg()[0]
footer = ((f"**{failures:.0f} tool runs failed** (their times are left out). " if failures else "")
          + f"{report_common.machine()}, load average {load:.1f} at the end; "
          + f"{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}; "
          + f"`bash Benchmarks/content-types.sh` (part of `make bench`) at commit {report_common.commit()}; {data['rounds']} interleaved rounds.")
report_common.publish(table, footer, doc, "content-types", sys.argv[1])
