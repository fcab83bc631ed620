/**
 * The ApiErrors kube's PATCH handler produces for patch application failures
 * (k8s.io/apiserver pkg/endpoints/handlers/patch.go), built on the shared api vocabulary.
 */
import { ApiError, errors, failureStatus } from '../api';

/**
 * kube's `NewGenericServerResponse(422, "", GroupResource{}, "", msg, 0, false)`: the message is
 * the generic sentence (the library's own text is dropped) and `details` is present but empty.
 */
export function genericUnprocessable(): ApiError {
  // kube's Status carries a non-nil, empty details object here: `"details":{}`.
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    details: {},
    code: 422,
  });
}

/** 400 BadRequest with `message` verbatim. */
export function badRequest(message: string): ApiError {
  return errors.badRequest(message);
}

/** 413 for a JSON patch with too many operations (patch.go maxJSONPatchOperations). */
export function tooManyOperations(limit: number, got: number): ApiError {
  return new ApiError(
    failureStatus(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${limit}, got ${got}`,
    ),
  );
}

/**
 * A plain Go error that reached the handler unconverted: responsewriters.ErrorToAPIStatus answers
 * 500 with reason StatusReasonUnknown (empty) and the error text as message.
 */
export function unconvertedError(message: string): ApiError {
  return new ApiError(failureStatus(500, '', message));
}

export { unmarshalTypeMessage } from '../api/go-json-error';
