/**
 * The frame of both webhook configuration declarations: kube's strategy
 * (pkg/registry/admissionregistration/{mutating,validating}webhookconfiguration: generation 1 on
 * create and one more whenever the webhooks change; no create on update, and an update must carry a
 * resourceVersion), its storage (cluster-scoped, every verb, category `api-extensions`) and kube's
 * printer columns (NAME, WEBHOOKS, AGE).
 */
import { type FieldError, nameIsDNSSubdomain, validateObjectMetaAccessor } from '../../../api';
import { semanticEqual } from '../../../api/semantic-equal';
import { type ResourceDefinition, type Strategy, type TableColumn, allVerbs, baseStrategy } from '../../resource';
import { ageColumn, nameColumn } from '../core/common';
import { ADMISSIONREGISTRATION_GROUP, type WebhookKind, webhooksOf } from './common';
import { defaultWebhookConfiguration } from './defaults';
import { validateWebhookConfiguration, validateWebhookConfigurationUpdate } from './validation';

const webhooksColumn: TableColumn = {
  name: 'Webhooks',
  type: 'integer',
  description: 'The number of webhooks in this configuration.',
  cell: (o) => webhooksOf(o).length,
};

/** kube's strategy; defaults first, as kube applies them when it decodes the object. */
function webhookStrategy(kind: WebhookKind): Strategy {
  return {
    ...baseStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    prepareForCreate: (_ctx, obj) => {
      defaultWebhookConfiguration(obj, kind);
      obj.metadata.generation = 1;
    },
    prepareForUpdate: (_ctx, obj, old) => {
      defaultWebhookConfiguration(obj, kind);
      // reflect.DeepEqual in kube, of objects read back from protobuf (where empty and absent lists are one).
      if (!semanticEqual(obj.webhooks, old.webhooks)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    validate: (_ctx, obj) => validateWebhookConfiguration(obj, kind),
    // kube checks the metadata of an update twice: in the generic store, then in the strategy's validation.
    validateUpdate: (_ctx, obj, old): FieldError[] => [
      ...validateObjectMetaAccessor(obj.metadata, false, nameIsDNSSubdomain),
      ...validateWebhookConfigurationUpdate(obj, old, kind),
    ],
  };
}

/** The declaration of MutatingWebhookConfiguration or ValidatingWebhookConfiguration. */
export function webhookConfigurationDeclaration(kind: WebhookKind): ResourceDefinition {
  const kindName = kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
  return {
    group: ADMISSIONREGISTRATION_GROUP,
    version: 'v1',
    resource: `${kind}webhookconfigurations`,
    singularName: `${kind}webhookconfiguration`,
    kind: kindName,
    listKind: `${kindName}List`,
    namespaced: false,
    shortNames: [],
    categories: ['api-extensions'],
    verbs: allVerbs,
    subresources: [],
    schemaName: `io.k8s.api.admissionregistration.v1.${kindName}`,
    protobufMessage: `k8s.io.api.admissionregistration.v1.${kindName}`,
    nameValidation: 'subdomain',
    returnDeletedObject: false,
    strategy: webhookStrategy(kind),
    selectableFields: {},
    fieldSelectorError: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
    tableColumns: [nameColumn, webhooksColumn, ageColumn],
  };
}
