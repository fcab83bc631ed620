/** auth/: authentication (authn/) and authorization (authz/). */
export * from './authn/types';
export * from './authn/token-file';
export * from './authz/authorizer';
