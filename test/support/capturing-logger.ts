/** A winston logger whose output a test reads. */
import { Writable } from 'node:stream';
import winston from 'winston';

/** A debug-level JSON logger; `lines` holds what it wrote, one entry a line, in order. */
export function capturingLogger(): { logger: winston.Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = winston.createLogger({
    level: 'debug',
    format: winston.format.json(),
    transports: [
      new winston.transports.Stream({
        stream: new Writable({
          write: (chunk: Buffer, _enc, cb) => {
            lines.push(chunk.toString());
            cb();
          },
        }),
      }),
    ],
  });
  return { logger, lines };
}
