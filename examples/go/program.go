// The tenant's configuration as a Go program, on the Go SDK that Pulumi's code generator makes from
// the provider plugin's schema (docs/guides/languages.md, "Go"). This file is the Pulumi program alone, a
// pulumi.RunFunc; main.go runs it through the Automation API as an inline program, so no Go
// language host is needed. It declares what examples/yaml declares in its first tenant.
package main

import (
	"github.com/pulumi-tenant/pulumi-tenant/sdk/go/tenant"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// program declares the push provider, one client's settings and a deleted event stream in the
// tenant of the stack config (`tenant:domain` and its credentials). The client and the event
// stream are named by the project's own config, `portalClientId` and `staleEventStreamId`.
func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")

	// MFA push notifications go through Amazon SNS.
	push, err := tenant.NewPushProviderSelection(ctx, "mfa-push", &tenant.PushProviderSelectionArgs{
		Provider: pulumi.String("sns"),
	})
	if err != nil {
		return err
	}

	portal, err := tenant.NewClientSettings(ctx, "portal", &tenant.ClientSettingsArgs{
		ClientId:          pulumi.String(cfg.Require("portalClientId")),
		Description:       pulumi.String("Customer portal (managed by the platform team)"),
		Callbacks:         pulumi.StringArray{pulumi.String("https://portal.example.com/callback")},
		AllowedLogoutUrls: pulumi.StringArray{pulumi.String("https://portal.example.com/")},
		WebOrigins:        pulumi.StringArray{pulumi.String("https://portal.example.com")},
		JwtConfiguration: &tenant.ClientSettingsJwtConfigurationArgs{
			LifetimeInSeconds: pulumi.Int(3600),
		},
		ClientMetadata: pulumi.StringMap{
			"owner":      pulumi.String("platform-team"),
			"costCenter": pulumi.String("cc-1042"),
		},
	})
	if err != nil {
		return err
	}

	// An old webhook stream that was replaced: it stays gone.
	if _, err := tenant.NewEventStreamDeletion(ctx, "retired-webhook", &tenant.EventStreamDeletionArgs{
		EventStreamId: pulumi.String(cfg.Require("staleEventStreamId")),
	}); err != nil {
		return err
	}

	ctx.Export("pushProvider", push.Provider)
	ctx.Export("portalCallbacks", portal.Callbacks)
	return nil
}
