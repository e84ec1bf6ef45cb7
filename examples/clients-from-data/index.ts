/**
 * One `ClientSettings` per entry of a JSON file: how a tenant with hundreds of applications keeps
 * them reviewable. The file is data, so a typo in it fails `pulumi preview` with the entry's name
 * and the property, exactly as a typo in code would.
 *
 * Stack config:
 *   tenant:domain and credentials (see the README)
 *   clients-from-data:file   path of the JSON file, relative to this folder (default clients.json)
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { ClientSettingsArgs } from "pulumi-tenant";
import { ClientSettings } from "pulumi-tenant";

interface Entry {
  /** The resource name: stable, so renaming a client in the file does not replace it. */
  name: string;
  clientId: string;
  settings: Omit<ClientSettingsArgs, "clientId">;
}

const config = new pulumi.Config("clients-from-data");
const file = resolve(import.meta.dirname, config.get("file") ?? "clients.json");
const entries = JSON.parse(readFileSync(file, "utf8")) as Entry[];

const managed = entries.map(
  (entry) => new ClientSettings(entry.name, { ...entry.settings, clientId: entry.clientId }),
);

export const managedClients = managed.map((settings) => settings.clientId);
