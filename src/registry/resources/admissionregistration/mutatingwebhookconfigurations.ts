/**
 * admissionregistration.k8s.io/v1 MutatingWebhookConfiguration (kubernetes
 * pkg/registry/admissionregistration/mutatingwebhookconfiguration): the webhooks the mutating
 * admission phase calls. The webhook dispatcher reads them through the server's shared informers.
 */
import type { ResourceDefinition } from '../../resource';
import { webhookConfigurationDeclaration } from './declaration';

export const mutatingwebhookconfigurations: ResourceDefinition = webhookConfigurationDeclaration('mutating');
