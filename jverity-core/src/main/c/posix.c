/*
 * The file and descriptor calls of org.jverity.posix.Posix (JniCalls), where libjverity.so is
 * loaded. The same calls bound through the FFM API cost a process ~60 ms of stub generation at their
 * first use, even from an AOT cache, which a one-shot command (avb info_image) or a fresh server's
 * first request pays in full; a JNI method costs a symbol lookup.
 *
 * Each returns the C result, or -errno when it failed; calls that may fail with EINTR are retried,
 * except close (on Linux the descriptor is gone even then). Nothing here reacts to a Java interrupt.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

enum { MAX_PATH = 4096 };

JNIEXPORT jint JNICALL Java_org_jverity_posix_JniCalls_open0(JNIEnv *env, jclass cls,
                                                             jbyteArray path_array, jint flags,
                                                             jint mode) {
  (void)cls;
  char path[MAX_PATH + 1];
  jsize len = (*env)->GetArrayLength(env, path_array);
  if (len <= 0 || len > MAX_PATH) return -ENAMETOOLONG;
  (*env)->GetByteArrayRegion(env, path_array, 0, len, (jbyte *)path);
  path[len] = '\0';
  if (memchr(path, '\0', (size_t)len) != NULL) return -EINVAL;
  int fd;
  do fd = open(path, flags, (mode_t)mode);
  while (fd < 0 && errno == EINTR);
  return fd < 0 ? -errno : fd;
}

/*
 * pread or pwrite of len bytes at pos, into or from array[off, off + len) (the caller checked the
 * bounds). The array is pinned for the call (GetPrimitiveArrayCritical): no copy, and the collector
 * waits until the call returns, as the FFM binding's critical option does.
 */
static jlong heap_io(JNIEnv *env, int write, jint fd, jbyteArray array, jlong off, jlong len,
                     jlong pos) {
  jbyte *base = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
  if (base == NULL) return -ENOMEM;
  ssize_t n;
  do n = write ? pwrite(fd, base + off, (size_t)len, (off_t)pos)
               : pread(fd, base + off, (size_t)len, (off_t)pos);
  while (n < 0 && errno == EINTR);
  int saved = errno;
  /* A read's bytes reach the array; a write changed nothing there (JNI_ABORT: no copy back). */
  (*env)->ReleasePrimitiveArrayCritical(env, array, base, write ? JNI_ABORT : 0);
  return n < 0 ? -saved : (jlong)n;
}

static jlong native_io(int write, jint fd, jlong address, jlong len, jlong pos) {
  void *p = (void *)(intptr_t)address;
  ssize_t n;
  do n = write ? pwrite(fd, p, (size_t)len, (off_t)pos) : pread(fd, p, (size_t)len, (off_t)pos);
  while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : (jlong)n;
}

JNIEXPORT jlong JNICALL Java_org_jverity_posix_JniCalls_preadHeap0(JNIEnv *env, jclass cls,
                                                                   jint fd, jbyteArray array,
                                                                   jlong off, jlong len,
                                                                   jlong pos) {
  (void)cls;
  return heap_io(env, 0, fd, array, off, len, pos);
}

JNIEXPORT jlong JNICALL Java_org_jverity_posix_JniCalls_pwriteHeap0(JNIEnv *env, jclass cls,
                                                                    jint fd, jbyteArray array,
                                                                    jlong off, jlong len,
                                                                    jlong pos) {
  (void)cls;
  return heap_io(env, 1, fd, array, off, len, pos);
}

JNIEXPORT jlong JNICALL Java_org_jverity_posix_JniCalls_preadNative0(JNIEnv *env, jclass cls,
                                                                     jint fd, jlong address,
                                                                     jlong len, jlong pos) {
  (void)env;
  (void)cls;
  return native_io(0, fd, address, len, pos);
}

JNIEXPORT jlong JNICALL Java_org_jverity_posix_JniCalls_pwriteNative0(JNIEnv *env, jclass cls,
                                                                      jint fd, jlong address,
                                                                      jlong len, jlong pos) {
  (void)env;
  (void)cls;
  return native_io(1, fd, address, len, pos);
}

JNIEXPORT jint JNICALL Java_org_jverity_posix_JniCalls_fsync0(JNIEnv *env, jclass cls, jint fd) {
  (void)env;
  (void)cls;
  int r;
  do r = fsync(fd);
  while (r < 0 && errno == EINTR);
  return r < 0 ? -errno : r;
}

JNIEXPORT jlong JNICALL Java_org_jverity_posix_JniCalls_seekEnd0(JNIEnv *env, jclass cls,
                                                                 jint fd) {
  (void)env;
  (void)cls;
  off_t r = lseek(fd, 0, SEEK_END);
  return r < 0 ? -errno : (jlong)r;
}

JNIEXPORT jint JNICALL Java_org_jverity_posix_JniCalls_close0(JNIEnv *env, jclass cls, jint fd) {
  (void)env;
  (void)cls;
  return close(fd) < 0 ? -errno : 0;
}

JNIEXPORT jint JNICALL Java_org_jverity_posix_JniCalls_dup0(JNIEnv *env, jclass cls, jint fd) {
  (void)env;
  (void)cls;
  int r = dup(fd);
  return r < 0 ? -errno : r;
}

JNIEXPORT jint JNICALL Java_org_jverity_posix_JniCalls_dup20(JNIEnv *env, jclass cls, jint from,
                                                             jint to) {
  (void)env;
  (void)cls;
  int r;
  do r = dup2(from, to);
  while (r < 0 && errno == EINTR);
  return r < 0 ? -errno : r;
}

/* strerror's text (NULL when there is none); strerror_r, GNU form, is thread-safe. */
JNIEXPORT jstring JNICALL Java_org_jverity_posix_JniCalls_strerror0(JNIEnv *env, jclass cls,
                                                                    jint errnum) {
  (void)cls;
  char buf[256];
  const char *s = strerror_r(errnum, buf, sizeof buf);
  return s == NULL ? NULL : (*env)->NewStringUTF(env, s);
}
