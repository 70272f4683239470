/**
 * Writing files the CLI was not handed a path to by a person: names from a personas folder
 * anyone can add to in a pull request, outputs next to inputs. A new file is created only where
 * nothing exists (not even a dangling symlink); a file is replaced only if it is a regular file,
 * never through a symlink to somewhere else.
 */
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';

/** Writes `content` to a file that must not exist yet; false if something is already there. */
export async function writeNewFile(path: string, content: string): Promise<boolean> {
  try {
    // 'wx' is O_CREAT | O_EXCL: it fails on any existing name, a symlink included, and never follows one.
    const file = await open(path, 'wx');
    await file.writeFile(content).finally(() => file.close());
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** A symlink or anything else that is not a plain file where the CLI would write. */
export class NotARegularFileError extends Error {
  override name = 'NotARegularFileError';
}

/** Replaces (or creates) a regular file; refuses a symlink or anything else in its place. */
export async function replaceFile(path: string, content: string): Promise<void> {
  const existing = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing && !existing.isFile()) throw new NotARegularFileError(`${path} is ${existing.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; not written`);
  // O_NOFOLLOW closes the gap between the check and the write (where the platform has it).
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  let file;
  try {
    file = await open(path, flags, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new NotARegularFileError(`${path} is a symbolic link; not written`);
    throw error;
  }
  await file.writeFile(content).finally(() => file.close());
}
