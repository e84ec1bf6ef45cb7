import { describe, expect, it } from "vitest";
import {
  FORMATS,
  isAbsoluteHttpsUriWithPlaceholdersOrEmpty,
  isAbsoluteUriOrEmpty,
  isCallbackUrl,
  isHttpUrl,
  isUrlWithPlaceholders,
} from "../provider/schema/formats.js";

describe("absolute-uri-or-empty", () => {
  it.each([
    "",
    "https://cdn.example.com/logo.png",
    "http://localhost/logo.png",
    "data:image/png;base64,iVBORw0KGgo=",
    "urn:example:logo",
  ])("accepts %j", (value) => {
    expect(isAbsoluteUriOrEmpty(value)).toBe(true);
  });

  it.each([
    " ",
    "logo.png",
    "/images/logo.png",
    "//cdn.example.com/logo.png",
    "https://",
    "https://cdn.example.com/my logo.png",
    "1https://cdn.example.com",
  ])("rejects %j", (value) => {
    expect(isAbsoluteUriOrEmpty(value)).toBe(false);
  });
});

describe("absolute-https-uri-with-placeholders-or-empty", () => {
  it.each([
    "",
    "https://app.example.com/login",
    "HTTPS://app.example.com/login",
    "https://{tenant}.example.com/login",
    "https://app.example.com/login?org={organization_name}",
  ])("accepts %j", (value) => {
    expect(isAbsoluteHttpsUriWithPlaceholdersOrEmpty(value)).toBe(true);
  });

  it.each([
    "http://app.example.com/login",
    "app.example.com/login",
    "https://",
    "https://app.example.com/{unclosed",
    "https://app.example.com/closed}",
    "https://app.example.com/{}",
    "https://app.example.com/log in",
    "com.example.app://login",
  ])("rejects %j", (value) => {
    expect(isAbsoluteHttpsUriWithPlaceholdersOrEmpty(value)).toBe(false);
  });
});

describe("callback-url", () => {
  it.each([
    "https://app.example.com/callback",
    "http://app.example.com/callback",
    "http://localhost",
    "http://localhost:3000/callback",
    "com.example.app://callback",
    "com.example.app:/oauth2redirect",
    "https://*.example.com/callback",
    "https://pr-*.preview.example.com/callback",
  ])("accepts %j", (value) => {
    expect(isCallbackUrl(value)).toBe(true);
  });

  it.each([
    "",
    "app.example.com/callback",
    "/callback",
    "localhost:3000/callback",
    "mailto:someone@example.com",
    "https://",
    "https://*.com/callback",
    "https://example.*/callback",
    "https://app.example.com/call back",
  ])("rejects %j", (value) => {
    expect(isCallbackUrl(value)).toBe(false);
  });
});

describe("url-with-placeholders", () => {
  it.each([
    "https://app.example.com",
    "http://localhost:3000",
    "https://*.example.com",
    "https://*.eu.example.com/logout",
    "https://{tenant}.example.com",
    "https://app.example.com/logout?returnTo=<anything> {}",
    "https://app.example.com/#/fragment with spaces",
  ])("accepts %j", (value) => {
    expect(isUrlWithPlaceholders(value)).toBe(true);
  });

  it.each([
    "",
    "app.example.com",
    "ftp://app.example.com",
    "com.example.app://callback",
    "https://app-*.example.com",
    "https://*.com",
    "https://app.example.com/{unclosed",
    "https://app example.com",
  ])("rejects %j", (value) => {
    expect(isUrlWithPlaceholders(value)).toBe(false);
  });
});

describe("url and url-or-null", () => {
  it.each(["https://app.example.com/cross-origin-verification", "http://localhost:3000/verify"])(
    "accepts %j",
    (value) => {
      expect(isHttpUrl(value)).toBe(true);
    },
  );

  it.each([
    "",
    "app.example.com/verify",
    "ftp://app.example.com/verify",
    "https://",
    "https://*.example.com/verify",
    "https://app.example.com/ver ify",
  ])("rejects %j", (value) => {
    expect(isHttpUrl(value)).toBe(false);
  });

  it("registers url-or-null and url as the same predicate, since null never reaches a format", () => {
    expect(FORMATS["url-or-null"]).toBe(FORMATS.url);
  });
});

it("registers exactly the six formats the schemas use", () => {
  expect(Object.keys(FORMATS).sort()).toEqual([
    "absolute-https-uri-with-placeholders-or-empty",
    "absolute-uri-or-empty",
    "callback-url",
    "url",
    "url-or-null",
    "url-with-placeholders",
  ]);
});
