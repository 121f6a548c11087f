# One OpenURL fast://during-flood; prints when it was sent and when it was answered.
# argv: bus address. env: SB_NAME, SB_PATH.
import os, sys, time, dbus
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
start = time.monotonic()
bus.call_blocking(N, O, N, 'OpenURL', 's', ['fast://during-flood'], timeout=600)
print('%.6f %.6f' % (start, time.monotonic()))
