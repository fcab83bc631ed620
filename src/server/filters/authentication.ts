import type { RequestHandler } from 'express';
import { errors } from '../../api';
import type { Authenticator } from '../../auth/authn/types';
import { writeError } from '../../endpoints/responses';

/** Paths answered without credentials (kube grants them to everyone via system:public-info-viewer). */
const publicPaths = [/^\/(healthz|livez|readyz)(\/.*)?$/, /^\/version\/?$/];

/** 401 Unauthorized Status for a request no authenticator recognises. */
export function withAuthentication(authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    if (publicPaths.some((p) => p.test(req.path))) return next();
    const user = await authenticator.authenticate({ headers: req.headers });
    if (!user) return writeError(res, errors.unauthorized());
    res.locals.user = user;
    // The credential stops here: nothing below this filter sees it.
    delete req.headers.authorization;
    next();
  };
}
