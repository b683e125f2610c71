import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { Errors } from '../../errors.js';
import { confinePathSync } from '../../paths/index.js';

const { O_RDWR, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
// O_NOFOLLOW: a symlink swapped in after the name was checked fails to open (ELOOP) instead of
// being followed. O_NONBLOCK: opening a FIFO never waits for a writer. O_NOCTTY: a terminal
// device can never become the server's controlling terminal.
const OPEN_FLAGS = O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

const OPEN_ERRORS: Readonly<Record<string, string>> = {
  ELOOP: 'it is a symbolic link',
  EISDIR: 'it is a directory',
  ENXIO: 'it is a socket or a device',
  ENODEV: 'it is a device',
  ENOTDIR: 'it names a path below something that is not a directory',
};

/**
 * Open the shm object a client named, for reading and writing, as a file descriptor of a regular
 * file directly in `root` (/dev/shm): the key goes through the one confinement check (src/paths),
 * the open refuses a final symlink, and the OPENED file is checked with fstat, so whatever was
 * swapped in between the check and the open, only a regular file with no other hard link is
 * kept. Errors quote the key the client gave, never the server's path.
 */
export function openShmKey(root: string, region: string, key: string): { fd: number; size: number } {
  // Quoted as Triton quotes it ('/key'), escaped and bounded: a key is the client's text.
  const shown = `'${JSON.stringify(String(key)).slice(1, -1).slice(0, 300)}'`;
  // A POSIX shm name is "/name"; shm_open("/name") is /dev/shm/name on Linux.
  const name = key.startsWith('/') ? key.slice(1) : key;
  const path = confinePathSync(root, name, 'shared memory key', { noFinalSymlink: true, inside: '/dev/shm' });
  if (name.includes('/')) throw Errors.shmKeyRefused(shown, "it names a file below a subdirectory (a POSIX shared memory name is '/name' with no other '/')");
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    if (OPEN_ERRORS[code]) throw Errors.shmKeyRefused(shown, OPEN_ERRORS[code]);
    if (code === 'ENOENT') throw Errors.shmKeyMissing(region, shown);
    throw Errors.shmKeyOpenFailed(region, shown, String(code));
  }
  const st = fstatSync(fd);
  let why: string | undefined;
  if (!st.isFile()) why = `it is ${kindOf(st)}, not a regular file`;
  // shm_open creates objects with one link; a second name means a file that lives elsewhere too.
  else if (st.nlink > 1) why = 'it is a hard link to a file that has another name';
  if (why) {
    closeSync(fd);
    throw Errors.shmKeyRefused(shown, why);
  }
  return { fd, size: st.size };
}
