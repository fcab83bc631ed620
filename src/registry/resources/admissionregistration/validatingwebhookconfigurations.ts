/**
 * admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration (kubernetes
 * pkg/registry/admissionregistration/validatingwebhookconfiguration): the webhooks the validating
 * admission phase calls. The webhook dispatcher reads them through the server's shared informers.
 */
import type { ResourceDefinition } from '../../resource';
import { webhookConfigurationDeclaration } from './declaration';

export const validatingwebhookconfigurations: ResourceDefinition = webhookConfigurationDeclaration('validating');
