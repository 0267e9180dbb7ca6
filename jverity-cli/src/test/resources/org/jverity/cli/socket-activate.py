# Passes a listening socket to a command as systemd does: bound here, given as fd 3 with
# LISTEN_FDS=1 and LISTEN_PID = the command's pid (set after fork, as libnbd does).
# Usage: socket-activate.py tcp|unix:PATH COMMAND... ; prints "ADDRESS PID" (the TCP port or the
# socket's path, the command's pid) on stdout, then exits with the command's status.
import os
import socket
import sys

where = sys.argv[1]
if where == "tcp":
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    address = str(s.getsockname()[1])
else:
    path = where.removeprefix("unix:")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    address = path
s.listen(16)
pid = os.fork()
if pid == 0:
    if s.fileno() != 3:
        os.dup2(s.fileno(), 3)
    os.set_inheritable(3, True)
    os.environ["LISTEN_FDS"] = "1"
    os.environ["LISTEN_PID"] = str(os.getpid())
    os.execvp(sys.argv[2], sys.argv[2:])
s.close()
print(address, pid, flush=True)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
