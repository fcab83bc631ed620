"""Reviews bearer tokens with the official Python client (AuthenticationV1Api.create_token_review).

Usage: token_review.py KUBECONFIG TOKEN... Prints one JSON list: for each token, what the client
read back (authenticated, user, error), or the ApiException's status and reason.
"""
import json
import sys

from kubernetes import client, config

config.load_kube_config(config_file=sys.argv[1])
api = client.AuthenticationV1Api()
out = []
for token in sys.argv[2:]:
    try:
        r = api.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token=token)))
        user = r.status.user
        out.append({
            "kind": r.kind,
            "authenticated": r.status.authenticated,
            "user": None if user is None else {"username": user.username, "uid": user.uid, "groups": user.groups},
            "error": r.status.error,
        })
    except client.ApiException as e:
        body = json.loads(e.body)
        out.append({"status": e.status, "reason": body.get("reason"), "message": body.get("message")})
print(json.dumps(out))
