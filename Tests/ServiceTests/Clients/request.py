# What the clients that make a request and wait for its Response share (Reply/caller.py,
# Pick/picker.py, Share/sharer.py). They import it from this folder, the parent of their own,
# however they are started, and leave no __pycache__ in the source tree:
#     sys.dont_write_bytecode = True
#     sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
# env: SB_NAME, SB_PATH (the service), SB_REQUEST (the request interface).
import os, sys, json, dbus
import variants
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
N, O, REQUEST = os.environ['SB_NAME'], os.environ['SB_PATH'], os.environ['SB_REQUEST']

def plain_response(code, results, path):
    """A Response as JSON: its code, its results as strings, and the request's path it came from."""
    return {'code': code, 'results': {str(k): str(v) for k, v in results.items()}, 'from': path,
            # How deep in variants each result is (1: the a{sv}'s own; a strict reader refuses more).
            'depths': {str(k): variants.depth(v) for k, v in results.items()}}

class Request:
    """A request made on the bus at `address`, and the Responses it gets."""

    def __init__(self, address):
        self.bus = dbus.bus.BusConnection(address)
        self.loop = GLib.MainLoop()
        self.responses = []
        self.path = None

    def service(self, interface=N):
        """The service's object, through `interface`."""
        return dbus.Interface(self.bus.get_object(N, O), interface)

    def run(self, call, response=plain_response, finished=None, close_gate=''):
        """Listens for Response (before the call, so none is missed), makes `call()`, which returns
        the request's path (a D-Bus error is printed as JSON, and the client exits), and runs until
        300 ms after the first Response, to see a second (forbidden) one: `response(code, results,
        path)` makes each one's entry in ``responses``. `finished()` (if given) is asked then and
        every 300 ms until it is true. `close_gate`: a file; once it exists, the client calls
        Close() on the request (polled every 50 ms). Returns ``responses``."""
        def on_response(code, results, path=None):
            self.responses.append(response(int(code), results, str(path)))
            GLib.timeout_add(300, self._end, finished)
        self.bus.add_signal_receiver(on_response, 'Response', REQUEST, path_keyword='path')
        try:
            self.path = call()
        except dbus.DBusException as e:
            print(json.dumps({'error': e.get_dbus_name(), 'message': str(e)})); sys.exit(0)
        if close_gate:
            GLib.timeout_add(50, self._close_when, close_gate)
        self.loop.run()
        return self.responses

    def print_outcome(self):
        """Prints the request's path and its Responses as JSON."""
        print(json.dumps({'path': str(self.path), 'responses': self.responses}))

    def _end(self, finished):
        if finished is not None and not finished():
            return True
        self.loop.quit()
        return False

    def _close_when(self, gate):
        if os.path.exists(gate):
            dbus.Interface(self.bus.get_object(N, self.path), REQUEST).Close(); return False
        return True
