/*
 * A small file read whole in one call (org.jverity.io.WholeFileRead): open, read to the end, close,
 * nothing else. For `digest --recursive` over 10^5 files of a few KiB, where a FileInputStream adds
 * an fstat, a Cleaner and several layers of Java per file to the three system calls that read it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <string.h>
#include <unistd.h>

enum { FULL = -1, FAILED = -2, MAX_PATH = 4096, CHUNK = 64 * 1024 };

/*
 * Reads the file named by path_array (its bytes, no NUL) into buf[off, off + room); returns its
 * length, FULL when the room filled before the end, FAILED on any error (the caller asks the JDK
 * again, whose exception names the cause). A read that returns `expected` bytes when more were
 * asked for ends the file: a regular file's read is short only at its end. Read through a buffer
 * on the stack, not into the array pinned: a read from a slow file system would hold off the
 * collector for as long.
 */
JNIEXPORT jint JNICALL Java_org_jverity_io_WholeFileRead_read0(JNIEnv *env, jclass cls,
                                                              jbyteArray path_array,
                                                              jbyteArray buf_array, jint off,
                                                              jint room, jlong expected) {
  (void)cls;
  char path[MAX_PATH + 1];
  jsize path_len = (*env)->GetArrayLength(env, path_array);
  jsize size = (*env)->GetArrayLength(env, buf_array);
  if (path_len <= 0 || path_len > MAX_PATH || off < 0 || room < 0 || (jlong)off + room > size)
    return FAILED;
  (*env)->GetByteArrayRegion(env, path_array, 0, path_len, (jbyte *)path);
  path[path_len] = '\0';
  if (memchr(path, '\0', (size_t)path_len) != NULL) return FAILED;
  int fd;
  do fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return FAILED;
  static __thread char chunk[CHUNK];
  jint length = 0, result;
  for (;;) {
    if (length == room) {
      result = FULL;
      break;
    }
    size_t ask = (size_t)(room - length) < CHUNK ? (size_t)(room - length) : CHUNK;
    ssize_t n = read(fd, chunk, ask);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      result = FAILED;
      break;
    }
    if (n == 0) {
      result = length;
      break;
    }
    (*env)->SetByteArrayRegion(env, buf_array, off + length, (jsize)n, (const jbyte *)chunk);
    length += (jint)n;
    if (length == expected && (size_t)n < ask) { /* short of what was asked: the end */
      result = length;
      break;
    }
  }
  close(fd);
  return result;
}
