#!/usr/bin/python3
"""Generates an XDG tree for `make bench`: ROOT/share/applications holds N desktop entries —
`todolist.desktop` (Exec=/bin/true %u, MimeType=x-scheme-handler/todolist) and N-1 realistic
~1 KiB entries (ten translations, 1 in 5 in vendor subfolders, each listing text/plain and two
schemes out of ~N/5+7). ROOT/data-home/applications (the user's dir) starts empty.
Prints the environment lines (KEY=VALUE) to use with it. Usage: gen-tree.py N ROOT"""
import os, sys

n, root = int(sys.argv[1]), sys.argv[2]
apps = os.path.join(root, "share", "applications")
for d in ("share/applications", "data-home/applications", "config", "home", "etc-xdg"):
    os.makedirs(os.path.join(root, d), exist_ok=True)
for v in range(20):
    os.makedirs(os.path.join(apps, f"vendor{v}"), exist_ok=True)
schemes = max(1, n // 5)
langs = ["de", "fr", "es", "it", "ja", "zh_CN", "pt_BR", "ru", "pl", "nl"]
with open(os.path.join(apps, "todolist.desktop"), "w") as f:
    f.write("[Desktop Entry]\nType=Application\nName=Todo\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;\n")
for i in range(n - 1):
    t = [f"[Desktop Entry]\nType=Application\nName=Application {i}\n"]
    for l in langs:
        t.append(f"Name[{l}]=Anwendung {i} {l}\nComment[{l}]=Does things number {i}\n")
    t.append(f"Exec=/usr/bin/app{i} --open %u\nIcon=app{i}\nTerminal=false\nCategories=Utility;\n")
    t.append(f"MimeType=text/plain;x-scheme-handler/s{i % schemes};x-scheme-handler/common{i % 7};\n")
    rel = f"vendor{i % 20}/app{i}.desktop" if i % 5 == 0 else f"app{i}.desktop"
    with open(os.path.join(apps, rel), "w") as f:
        f.write("".join(t))
print(f"HOME={root}/home")
print(f"XDG_DATA_HOME={root}/data-home")
print(f"XDG_DATA_DIRS={root}/share")
print(f"XDG_CONFIG_HOME={root}/config")
print(f"XDG_CONFIG_DIRS={root}/etc-xdg")
