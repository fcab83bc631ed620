import type { RequestHandler } from 'express';
import { errors } from '../../api';
import type { Authenticator } from '../../auth/authn/types';
import { writeError } from '../../endpoints/responses';
import { closeHttp2ConnectionAfter } from '../http2-express';

/** Paths answered without credentials (kube grants them to everyone via system:public-info-viewer). */
const publicPaths = [/^\/(healthz|livez|readyz)(\/.*)?$/, /^\/version\/?$/];

/** Options of {@link withAuthentication}. */
export interface AuthenticationOptions {
  /**
   * Gate UnauthenticatedHTTP2DOSMitigation (beta, on by default): an HTTP/2 connection that carries
   * an unauthenticated request (401, or an anonymous one to a public path) is closed after it.
   */
  http2DosMitigation?: boolean;
}

/** 401 Unauthorized Status for a request no authenticator recognises. */
export function withAuthentication(authenticator: Authenticator, opts: AuthenticationOptions = {}): RequestHandler {
  const mitigate = opts.http2DosMitigation ?? true;
  return async (req, res, next) => {
    if (publicPaths.some((p) => p.test(req.path))) {
      // kube serves these to system:anonymous, and answers an anonymous HTTP/2 request with `Connection: close`.
      if (mitigate && req.httpVersionMajor === 2 && !(await authenticator.authenticate({ headers: req.headers }))) closeHttp2ConnectionAfter(res);
      return next();
    }
    const user = await authenticator.authenticate({ headers: req.headers });
    if (!user) {
      // kube's Unauthorized handler: `Connection: close` on HTTP/2, i.e. a GOAWAY once the 401 is sent.
      if (mitigate && req.httpVersionMajor === 2) closeHttp2ConnectionAfter(res);
      return writeError(res, errors.unauthorized());
    }
    res.locals.user = user;
    // The credential stops here: nothing below this filter sees it.
    delete req.headers.authorization;
    next();
  };
}
