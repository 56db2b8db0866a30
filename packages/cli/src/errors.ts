/**
 * One-line messages for the errors a user causes at start-up (a port already taken, a data dir
 * that cannot be written), so that `kplane` prints what to do instead of a stack trace.
 */
import { resolve } from 'node:path';

/** The fields Node sets on system errors (listen, mkdir, open...). */
interface SystemError {
  code?: string;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
  message?: string;
}

const CANNOT_WRITE: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a file is in the way',
  EISDIR: 'a folder is in the way',
  ENOSPC: 'no space left on the device',
};

/** The message `kplane` prints for err: one line, no stack; a known start-up failure says what to do. */
export function friendlyMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const e = err as Error & SystemError;
  if (e.syscall === 'listen' || e.syscall === 'bind') {
    const where = e.port === undefined ? 'the port' : `port ${e.port}${e.address ? ` on ${e.address}` : ''}`;
    if (e.code === 'EADDRINUSE') {
      return `${where} is already in use (is kplane already running?): stop what holds it, or choose another port with --port N (--port 0 picks a free one)`;
    }
    if (e.code === 'EACCES') return `not allowed to listen on ${where}: choose a port above 1023 with --port N`;
    if (e.code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: the address is not one of this machine's`;
  }
  if (e.code !== undefined && e.path !== undefined && e.code in CANNOT_WRITE) {
    return `cannot write ${resolve(e.path)}: ${CANNOT_WRITE[e.code]}; choose a writable folder with --data-dir DIR`;
  }
  return firstLine(err.message);
}

function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return nl < 0 ? text : text.slice(0, nl);
}
