/* A fault-injecting layer for the power-loss test (tests/e2e/test_power_loss.py).
 *
 * Preloaded into the bot process (LD_PRELOAD), it lets every fsync and fdatasync
 * through and then appends "<size> <path>" of the synced file to the file named by
 * STEPAN_SYNC_LOG: what the disk is known to hold. After the process is killed, the
 * test cuts each database file back to its last synced size, which is what a
 * machine that lost power would find (the page cache, holding every write made
 * since the last sync, is gone). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void note(int fd) {
    const char *log = getenv("STEPAN_SYNC_LOG");
    char link[64], path[4096], line[4200];
    struct stat st;
    ssize_t n;
    int out, len;
    if (log == NULL) return;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, path, sizeof path - 1);
    if (n <= 0 || fstat(fd, &st) != 0) return;
    path[n] = '\0';
    out = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (out < 0) return;
    len = snprintf(line, sizeof line, "%lld %s\n", (long long)st.st_size, path);
    if (write(out, line, (size_t)len) < 0) { /* nothing to do: the log is best effort */ }
    close(out);
}

int fsync(int fd) {
    static int (*real)(int) = NULL;
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int result = real(fd);
    if (result == 0) note(fd);
    return result;
}

int fdatasync(int fd) {
    static int (*real)(int) = NULL;
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int result = real(fd);
    if (result == 0) note(fd);
    return result;
}
