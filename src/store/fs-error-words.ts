// File-system failures in the words an installer on site understands, with the errno kept for
// searching: "disk full (ENOSPC)".
const WORDS: Record<string, string> = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EIO: 'input/output error (the storage may be failing)',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EEXIST: 'already exists',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EBUSY: 'device or resource busy',
  EFBIG: 'file too large',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many symbolic links',
  EINVAL: 'invalid argument',
};

export function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

export function describeFsError(error: unknown): string {
  const code = errnoCode(error);
  if (code === undefined) return error instanceof Error ? error.message : String(error);
  const words = WORDS[code];
  return words === undefined ? code : `${words} (${code})`;
}
