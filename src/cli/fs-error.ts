// File-system failures on the paths a user gave (a settings file that is a
// folder, an output folder where a file is, no permission, a full disk) as a
// sentence naming the path and the fix, instead of Node's error and stack.

import { displayPath } from './report'

/** What Node's system errors carry. */
interface SystemError extends Error {
  code: string
  syscall?: string
  path?: string
  dest?: string
}

function isSystemError(error: unknown): error is SystemError {
  return error instanceof Error && typeof (error as SystemError).code === 'string' && /^E[A-Z]+$/.test((error as SystemError).code) && typeof (error as SystemError).syscall === 'string'
}

/** What the command was doing, from the system call. */
const DOING: Record<string, string> = {
  mkdir: 'create the folder',
  mkdtemp: 'create a folder beside',
  open: 'open',
  read: 'read',
  scandir: 'list the folder',
  write: 'write',
  rename: 'move',
  unlink: 'remove',
  rm: 'remove',
  rmdir: 'remove',
  copyfile: 'copy',
  stat: 'check',
  lstat: 'check',
}

/** Why, and what to do, per error code. */
const WHY: Record<string, string> = {
  ENOENT: 'it does not exist (or was removed meanwhile). Check the path, or create what is missing',
  EACCES: 'permission denied. Give this account access to it, or point the command at a folder it may use',
  EPERM: 'the operation is not permitted. Give this account access to it, or point the command at a folder it may use',
  EISDIR: 'it is a folder where a file is expected. Remove or rename that folder',
  ENOTDIR: 'a part of that path is a file where a folder is expected. Move that file away, or choose another path',
  EEXIST: 'a file is in the way. Move it away, or choose another path',
  ENOTEMPTY: 'the folder is not empty. Empty or remove it, or choose another path',
  ENOSPC: 'the disk is full. Free some space and run the command again',
  EROFS: 'the file system is read-only. Point the command at a writable folder',
  EMFILE: 'too many files are open. Raise the limit (ulimit -n) and run the command again',
  ENAMETOOLONG: 'the path is too long. Choose a shorter one',
  ELOOP: 'it goes through a loop of symbolic links. Replace the links with real folders',
}

/**
 * The message for a file-system error on a user's path, or `undefined` for
 * any other error (a bug, whose stack trace is worth printing).
 */
export function fileSystemMessage(error: unknown): string | undefined {
  if (!isSystemError(error) || !(error.code in WHY))
    return undefined
  const doing = DOING[error.syscall!] ?? error.syscall!
  const where = error.path === undefined ? 'a file' : displayPath(error.path)
  return `Cannot ${doing} ${where}: ${WHY[error.code]} (${error.code}).`
}
