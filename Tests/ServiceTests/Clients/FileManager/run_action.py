"""Runs SchemeBridge's "Share…" action as a file manager would, for FileManagerActionTests.

  run_action.py nautilus SCRIPT FOLDER NAME...   the script in FOLDER with the selected names as
                                                 arguments (Nautilus's way for files in the folder
                                                 it shows), NAUTILUS_SCRIPT_SELECTED_FILE_PATHS set
  run_action.py nautilus-env SCRIPT PATH...      no arguments, the paths only in that variable
  run_action.py thunar SNIPPET PATH...           the <command> of a uca.xml action, %F expanded as
                                                 Thunar does (each path g_shell_quote'd, the line
                                                 split with g_shell_parse_argv), run without a shell
  run_action.py dolphin DESKTOP-FILE PATH...     the service menu's action Exec, %F expanded as the
                                                 desktop entry spec (and KIO) do: one argument a path
Exits with the action's status.
"""
import configparser
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

from gi.repository import GLib


def main():
    mode, target, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    env = dict(os.environ)
    if mode == "nautilus":
        folder, names = rest[0], rest[1:]
        env["NAUTILUS_SCRIPT_SELECTED_FILE_PATHS"] = "".join(os.path.join(folder, n) + "\n" for n in names)
        return subprocess.run([target] + names, cwd=folder, env=env).returncode
    if mode == "nautilus-env":
        env["NAUTILUS_SCRIPT_SELECTED_FILE_PATHS"] = "".join(p + "\n" for p in rest)
        return subprocess.run([target], env=env).returncode
    if mode == "thunar":
        command = ET.parse(target).getroot().find("command").text
        line = command.replace("%F", " ".join(GLib.shell_quote(p) for p in rest))
        return subprocess.run(GLib.shell_parse_argv(line)[1], env=env).returncode
    if mode == "dolphin":
        entry = configparser.ConfigParser(interpolation=None, strict=False)
        entry.optionxform = str
        entry.read(target, encoding="utf-8")
        argv = []
        for word in GLib.shell_parse_argv(entry["Desktop Action share"]["Exec"])[1]:
            argv += rest if word == "%F" else [word]
        return subprocess.run(argv, env=env).returncode
    sys.exit("unknown mode " + mode)


sys.exit(main())
