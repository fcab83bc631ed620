import { chunkOf } from '../../../src/endpoints/watch-frames';

describe('chunkOf', () => {
  it.each([
    ['{"type":"ADDED"}\n', '11\r\n{"type":"ADDED"}\n\r\n'],
    ['', '0\r\n\r\n'],
    ['x'.repeat(255), `ff\r\n${'x'.repeat(255)}\r\n`],
  ])('frames %j as one HTTP/1.1 chunk (hex size, CRLF, data, CRLF)', (frame, chunk) => {
    expect(chunkOf(Buffer.from(frame)).toString('latin1')).toBe(chunk);
  });

  it('keeps binary frames byte for byte', () => {
    const frame = Buffer.from([0, 0, 0, 3, 0xff, 0x0d, 0x0a]);
    expect(chunkOf(frame)).toEqual(Buffer.concat([Buffer.from('7\r\n'), frame, Buffer.from('\r\n')]));
  });
});
