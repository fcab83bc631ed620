/**
 * The internal AuthenticationConfiguration (kube's k8s.io/apiserver/pkg/apis/apiserver): what
 * config/kinds/authentication.ts decodes every served version into, and what auth/authn/jwt.ts
 * builds authenticators from. Expressions arrive compiled (api/cel.ts).
 */
import type { CompiledCel } from './cel';

export interface AuthenticationConfiguration {
  jwt: JWTAuthenticatorConfig[];
  anonymous?: { enabled: boolean; conditions: Array<{ path: string }> };
}

export interface PrefixedClaimOrExpression {
  claim: string;
  /** undefined: not set (kube's *string). */
  prefix?: string;
  expression: string;
  compiled?: CompiledCel;
}

export interface JWTAuthenticatorConfig {
  issuer: {
    url: string;
    discoveryURL?: string;
    certificateAuthority: string;
    audiences: string[];
    audienceMatchPolicy: string;
  };
  claimValidationRules: Array<{ claim: string; requiredValue: string; expression: string; message: string; compiled?: CompiledCel }>;
  claimMappings: {
    username: PrefixedClaimOrExpression;
    groups: PrefixedClaimOrExpression;
    uid: { claim: string; expression: string; compiled?: CompiledCel };
    extra: Array<{ key: string; valueExpression: string; compiled?: CompiledCel }>;
  };
  userValidationRules: Array<{ expression: string; message: string; compiled?: CompiledCel }>;
}
