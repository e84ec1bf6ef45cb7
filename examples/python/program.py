"""The tenant's configuration as a Python program.

It runs on ``pulumi_tenant``, the Python SDK that Pulumi's code generator makes from the provider
plugin's schema (docs/guides/languages.md, "Python"). This module is the Pulumi program alone;
``main.py`` runs it through the Automation API as an inline program, so no Python language host is
needed. It declares what examples/go declares, and the partner client whose security mode was fixed
at its creation.
"""

import pulumi
import pulumi_tenant as tenant


def program() -> None:
    """Declares the push provider, two clients' settings and a deleted event stream.

    The tenant is the stack config's (``tenant:domain`` and its credentials); the clients and the
    event stream are named by the project's own config: ``portalClientId``, ``partnerClientId`` and
    ``staleEventStreamId``.
    """
    config = pulumi.Config()

    # MFA push notifications go through Amazon SNS.
    push = tenant.PushProviderSelection("mfa-push", provider="sns")

    portal = tenant.ClientSettings(
        "portal",
        client_id=config.require("portalClientId"),
        description="Customer portal (managed by the platform team)",
        callbacks=["https://portal.example.com/callback"],
        allowed_logout_urls=["https://portal.example.com/"],
        web_origins=["https://portal.example.com"],
        jwt_configuration=tenant.ClientSettingsJwtConfigurationArgs(lifetime_in_seconds=3600),
        client_metadata={"owner": "platform-team", "costCenter": "cc-1042"},
    )

    # A partner's third-party client: its security mode was fixed when it was created, and
    # declaring it makes a program that says otherwise fail at preview.
    tenant.ClientSettings(
        "partner",
        client_id=config.require("partnerClientId"),
        third_party_security_mode="strict",
        redirection_policy="open_redirect_protection",
    )

    # An old webhook stream that was replaced: it stays gone.
    tenant.EventStreamDeletion(
        "retired-webhook", event_stream_id=config.require("staleEventStreamId")
    )

    pulumi.export("pushProvider", push.provider)
    pulumi.export("portalCallbacks", portal.callbacks)
