# An app's entry program: records the URL it was started with and the activation token it was
# handed (XDG_ACTIVATION_TOKEN, DESKTOP_STARTUP_ID), as JSON, in argv[1] (written, then renamed).
# argv: record file, URL.
import json, os, sys
record = {'url': sys.argv[2], 'XDG_ACTIVATION_TOKEN': os.environ.get('XDG_ACTIVATION_TOKEN'),
          'DESKTOP_STARTUP_ID': os.environ.get('DESKTOP_STARTUP_ID')}
with open(sys.argv[1] + '.tmp', 'w') as f:
    json.dump(record, f)
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
