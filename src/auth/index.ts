/** auth/: authentication (authn/) and authorization (authz/). */
export * from './authn/types';
export * from './authn/token-file';
export * from './authz/authorizer';
export * from './authn/union';
export * from './authn/anonymous';
export * from './authz/union';
