/**
 * Text leaving the sandbox (an error's message and stack, a log line) is cut here, before
 * isolated-vm copies it out: copying a 20 MB message took seconds. 4 KiB of UTF-8 leaves room
 * for the server's prefix ("model 'm': execute() failed: ") and the script position within the
 * server's own bound on messages (8 KiB, src/errors.ts MAX_MESSAGE_BYTES), so the count in the
 * note is the one the client reads.
 */
const SANDBOX_TEXT_BYTES = 4096;

/** Room kept for the "... (N more bytes)" ending. */
const NOTE_BYTES = 32;

/** `s` within `max` UTF-8 bytes, cut at a character boundary and ended "... (N more bytes)". */
export function boundedText(s: string, max = SANDBOX_TEXT_BYTES): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short text needs no counting.
  if (s.length * 3 <= max) return s;
  const budget = max - NOTE_BYTES;
  let total = 0;
  let cutAt = -1;
  let kept = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let n: number;
    if (c < 0x80) n = 1;
    else if (c < 0x800) n = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) n = 4;
    else n = 3; // a lone surrogate becomes U+FFFD, three bytes
    if (cutAt < 0 && total + n > budget) { cutAt = i; kept = total; }
    total += n;
    if (n === 4) i++;
  }
  if (total <= max) return s;
  return `${s.slice(0, cutAt)}... (${total - kept} more bytes)`;
}

/** A stack whose first line repeats a message that was cut: the same cut there, the frames kept. */
export function boundedStack(stack: string | undefined, message: string, cut: string): string | undefined {
  if (stack === undefined) return undefined;
  if (cut !== message) {
    const at = stack.indexOf(message);
    if (at >= 0) stack = `${stack.slice(0, at)}${cut}${stack.slice(at + message.length)}`;
  }
  // Frames past this are of no use to the position the host maps.
  return boundedText(stack, 4 * SANDBOX_TEXT_BYTES);
}
