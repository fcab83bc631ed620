export * from './types';
export * from './schema-registry';
export { goBase64Decode, base64ErrorMessage } from './go-base64';
export { goTimeParseError } from './go-time';
export type { PruneMode } from './prune-unknown';
