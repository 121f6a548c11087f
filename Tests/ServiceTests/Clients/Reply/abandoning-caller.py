# 100 OpenURLWithReply bulk://<argv[2]>/<i>; prints how many are pending, then dies by SIGKILL
# if argv[3] is 'die' (else exits). argv: bus address, tag, die|stay. env: SB_NAME, SB_PATH.
import sys, os, dbus
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
svc = dbus.Interface(bus.get_object(N, O), N)
pending = []
for i in range(100):
    pending.append(svc.OpenURLWithReply('bulk://%s/%d' % (sys.argv[2], i), {}))
print(len(pending), flush=True)
if sys.argv[3] == 'die': os.kill(os.getpid(), 9)
