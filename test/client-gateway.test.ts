import { describe, expect, it } from "vitest";
import { clientListRequest, clientReadRequest } from "../provider/api/client-requests.js";

describe("the client reads' requests", () => {
  it("ask for one page of 100 with the tenant's total and only the fields asked for", () => {
    expect(
      clientListRequest(3, ["client_id", "name"], { filters: { app_type: "spa,native" } }),
    ).toEqual({
      method: "GET",
      path: "/clients",
      params: {
        fields: "client_id,name",
        include_fields: "true",
        page: "3",
        per_page: "100",
        include_totals: "true",
        app_type: "spa,native",
      },
    });
  });

  it("read one client with its id encoded in the path and the query kept apart", () => {
    expect(clientReadRequest("a/b", ["client_id"])).toEqual({
      method: "GET",
      path: "/clients/a%2Fb",
      params: { fields: "client_id", include_fields: "true" },
    });
  });
});
