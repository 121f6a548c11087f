# Starts /bin/sleep 600 as pid argv[1] (free now): clone3(2) with set_tid (root only) makes a
# process with exactly that pid or fails, whatever other processes fork meanwhile. This parent
# leaves at once (the sleeper is then init's); prints the pid, or 'clone3: <why not>'.
import ctypes, os, sys, struct, signal
libc = ctypes.CDLL(None, use_errno=True)
tid = (ctypes.c_int32 * 1)(int(sys.argv[1]))
args = struct.pack('10Q', 0, 0, 0, 0, signal.SIGCHLD, 0, 0, 0, ctypes.addressof(tid), 1)
pid = libc.syscall(435, ctypes.create_string_buffer(args, len(args)), len(args))   # clone3
if pid == 0:   # it keeps none of the pipes the test reads to their end
    null = os.open('/dev/null', os.O_WRONLY); os.dup2(null, 1); os.dup2(null, 2); os.closerange(3, 65536)
    os.execv('/bin/sleep', ['sleep', '600'])
print(pid if pid > 0 else 'clone3: %s' % os.strerror(ctypes.get_errno()))
