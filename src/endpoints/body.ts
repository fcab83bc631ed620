/** Reads a request body with kube's size limit (413 past it). */
import type { IncomingMessage } from 'node:http';
import { errors } from '../api';

/** kube's MaxRequestBodyBytes (3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = maxRequestBodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) throw errors.requestEntityTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw errors.requestEntityTooLarge(limit);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}
