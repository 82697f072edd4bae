/**
 * The site icon served at /favicon.ico: a 32x32 map pin, drawn here and packed as an ICO holding one PNG image
 * (the form every current browser reads), so browsers asking for it get an icon instead of a 404.
 */
import { crc32, deflateSync } from 'node:zlib';

const SIZE = 32;
const BACKGROUND = [0x54, 0x27, 0x8f, 0xff] as const;
const PIN = [0xff, 0xff, 0xff, 0xff] as const;
const CLEAR = [0, 0, 0, 0] as const;

/** The colour of pixel (x, y): a rounded square with a white pin whose head has a hole. */
function pixel(x: number, y: number): readonly number[] {
  const cx = x + 0.5;
  const cy = y + 0.5;
  const corner = 6;
  const dx = Math.max(corner - cx, cx - (SIZE - corner), 0);
  const dy = Math.max(corner - cy, cy - (SIZE - corner), 0);
  if (dx * dx + dy * dy > corner * corner) return CLEAR;
  const head = Math.hypot(cx - 16, cy - 13);
  if (head <= 3) return BACKGROUND;
  if (head <= 8) return PIN;
  // The point: a triangle from the head's widest row down to (16, 28).
  if (cy > 13 && cy <= 28 && Math.abs(cx - 16) <= (8 * (28 - cy)) / 15) return PIN;
  return BACKGROUND;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, deflate, no filter method extensions, no interlace
  const rows = Buffer.alloc(SIZE * (1 + SIZE * 4));
  for (let y = 0; y < SIZE; y++) {
    const row = y * (1 + SIZE * 4); // each row starts with filter type 0
    for (let x = 0; x < SIZE; x++) rows.set(pixel(x, y), row + 1 + x * 4);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function ico(image: Buffer): Buffer {
  const dir = Buffer.alloc(6 + 16);
  dir.writeUInt16LE(0, 0); // reserved
  dir.writeUInt16LE(1, 2); // type: icon
  dir.writeUInt16LE(1, 4); // one image
  dir.writeUInt8(SIZE, 6);
  dir.writeUInt8(SIZE, 7);
  dir.writeUInt16LE(1, 10); // colour planes
  dir.writeUInt16LE(32, 12); // bits per pixel
  dir.writeUInt32LE(image.length, 14);
  dir.writeUInt32LE(dir.length, 18);
  return Buffer.concat([dir, image]);
}

/** The bytes of /favicon.ico (deterministic). */
export const FAVICON_ICO: Uint8Array = new Uint8Array(ico(png()));
/** Its media type. */
export const FAVICON_TYPE = 'image/x-icon';
