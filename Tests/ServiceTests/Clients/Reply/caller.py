# A caller: OpenURLWithReply(url, options), then prints the one Response (code and the results as
# JSON), or the error name. argv: bus address, URL, timeout option ('' for none), gate file ('' for
# none: when it appears, the caller calls Close()). env: SB_NAME, SB_PATH, SB_REQUEST; SB_ACTIVATION_TOKEN
# (optional): the activation-token option.
import sys, os, dbus
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from request import Request
request = Request(sys.argv[1])
svc = request.service()
options = {'timeout': dbus.UInt32(int(sys.argv[3]))} if sys.argv[3] else {}
if os.environ.get('SB_ACTIVATION_TOKEN'):
    options['activation-token'] = os.environ['SB_ACTIVATION_TOKEN']
request.run(lambda: svc.OpenURLWithReply(sys.argv[2], options, timeout=300), close_gate=sys.argv[4])
request.print_outcome()
