import { describe, expect, it } from "vitest";
import {
  DOWNLOAD_URL_SETTING,
  packageSchema,
  pluginDownloadUrl,
} from "../provider/plugin/package-schema.js";

/**
 * The build setting that names where Pulumi downloads the plugin (docs/design/plugin.md, "The
 * self-contained executables").
 */

describe("the plugin's download URL, a setting of the build", () => {
  it("is left out of the schema when the setting is unset or empty", () => {
    expect(pluginDownloadUrl({})).toBeUndefined();
    expect(pluginDownloadUrl({ [DOWNLOAD_URL_SETTING]: " " })).toBeUndefined();
    expect(packageSchema("0.1.0", undefined)).not.toHaveProperty("pluginDownloadURL");
  });

  it("becomes the schema's pluginDownloadURL, placeholders kept for Pulumi to fill", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Pulumi's own placeholder, filled at download.
    const url = "https://github.com/pulumi-tenant/pulumi-tenant/releases/download/v${VERSION}";
    const setting = pluginDownloadUrl({ [DOWNLOAD_URL_SETTING]: url });
    expect(packageSchema("0.1.0", setting).pluginDownloadURL).toBe(url);
  });

  it("accepts the github:// form Pulumi reads as a repository's releases", () => {
    expect(
      pluginDownloadUrl({ [DOWNLOAD_URL_SETTING]: "github://api.github.com/pulumi-tenant" }),
    ).toBe("github://api.github.com/pulumi-tenant");
  });

  it("refuses a value Pulumi cannot download from, naming the setting", () => {
    expect(() => pluginDownloadUrl({ [DOWNLOAD_URL_SETTING]: "releases/v0.1.0" })).toThrow(
      'PULUMI_TENANT_PLUGIN_DOWNLOAD_URL is "releases/v0.1.0", which is not a URL Pulumi downloads plugins from (https://, github://, gitlab://)',
    );
  });

  it("refuses an http: URL, from which the SDKs would have users fetch an executable in clear text", () => {
    expect(() =>
      pluginDownloadUrl({ [DOWNLOAD_URL_SETTING]: "http://releases.example/v0.1.0" }),
    ).toThrow(
      'PULUMI_TENANT_PLUGIN_DOWNLOAD_URL is "http://releases.example/v0.1.0", which would have Pulumi fetch the plugin\'s executable in clear text: use https://, github:// or gitlab://',
    );
  });

  it("accepts the gitlab:// form Pulumi reads as a project's releases", () => {
    expect(pluginDownloadUrl({ [DOWNLOAD_URL_SETTING]: "gitlab://gitlab.com/12345" })).toBe(
      "gitlab://gitlab.com/12345",
    );
  });
});
