import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'winston';
import { errors, isApiError } from '../../api';
import { writeError } from '../../endpoints/responses';
import { maybeRequestState } from '../../endpoints/request-state';

/** The one error middleware: ApiErrors are written as their Status; anything else is a bug → logged, 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const warnings = maybeRequestState(res)?.warnings ?? [];
    if (isApiError(err)) return writeError(res, err, warnings);
    // express's body/URL errors carry an HTTP status: they are the client's mistake.
    const status = (err as { status?: number }).status;
    if (status && status >= 400 && status < 500) return writeError(res, errors.badRequest((err as Error).message));
    logger.error('unhandled error', { path: req.originalUrl, error: (err as Error)?.stack ?? String(err) });
    writeError(res, errors.internal(err), warnings);
  };
}
