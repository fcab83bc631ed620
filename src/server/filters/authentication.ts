import type { RequestHandler } from 'express';
import { errors, isApiError } from '../../api';
import { SYSTEM_ANONYMOUS, SYSTEM_UNAUTHENTICATED, type Authenticator } from '../../auth/authn/types';
import { requestState } from '../../endpoints/request-state';
import { writeError } from '../../endpoints/responses';
import { closeHttp2ConnectionAfter } from '../http2-express';
import { peerCertificatesOf } from '../peer-certificates';

/** Options of {@link withAuthentication}. */
export interface AuthenticationOptions {
  /**
   * Gate UnauthenticatedHTTP2DOSMitigation (beta, on by default): an HTTP/2 connection that carries
   * an unauthenticated request (a 401, or one let in as system:anonymous) is closed after it.
   */
  http2DosMitigation?: boolean;
}

/**
 * Who the request is: the authenticator's user (anonymous is one of the authenticators, so paths
 * get no special treatment here), else 401 Unauthorized — over HTTP/1.1 and HTTP/2 alike.
 */
export function withAuthentication(authenticator: Authenticator, opts: AuthenticationOptions = {}): RequestHandler {
  const mitigate = opts.http2DosMitigation ?? true;
  return async (req, res, next) => {
    let user;
    try {
      user = await authenticator.authenticate({ headers: req.headers, path: req.path, peerCertificates: () => peerCertificatesOf(req) });
    } catch (e) {
      if (!isApiError(e)) throw e;
      user = null;
    }
    const http2 = req.httpVersionMajor === 2;
    if (!user) {
      // kube's Unauthorized handler: `Connection: close` on HTTP/2, i.e. a GOAWAY once the 401 is sent.
      if (mitigate && http2) closeHttp2ConnectionAfter(res);
      return writeError(res, errors.unauthorized());
    }
    // kube answers an anonymous HTTP/2 request with `Connection: close` too.
    if (mitigate && http2 && (user.name === SYSTEM_ANONYMOUS || user.groups.includes(SYSTEM_UNAUTHENTICATED))) closeHttp2ConnectionAfter(res);
    requestState(res).user = user;
    // The credential stops here: nothing below this filter sees it.
    delete req.headers.authorization;
    next();
  };
}
