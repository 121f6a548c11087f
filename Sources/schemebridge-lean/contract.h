/* Generated from SchemeBridgeContract and SchemeBridgeCLIKit (LeanEntryHeader.swift): do not edit.
 * `make lean-header` writes it; LeanEntryHeaderTests fails when it differs from the contract. */
#ifndef SCHEMEBRIDGE_LEAN_CONTRACT_H
#define SCHEMEBRIDGE_LEAN_CONTRACT_H

/* Contract.busName, objectPath, interface, errorPrefix; ContractMethod; OpenOptions.Key, DocumentMode. */
#define SERVICE "io.github.schemebridge.SchemeBridge1"
#define OBJECT_PATH "/io/github/schemebridge/SchemeBridge1"
#define INTERFACE "io.github.schemebridge.SchemeBridge1"
#define ERROR_PREFIX "io.github.schemebridge.SchemeBridge1.Error."
#define METHOD_OPEN_URL "OpenURL"
#define METHOD_OPEN_URL_WITH_OPTIONS "OpenURLWithOptions"
#define METHOD_OPEN_FILE "OpenFile"
#define OPTION_ACTIVATION_TOKEN "activation-token"
#define OPTION_MODE "mode"
#define MODE_IN_PLACE "in-place"
#define FULL_CLI "schemebridge-cli"

/* The exit statuses of schemebridge, xdg-open's (ExitStatus). */
enum status { SUCCESS = 0, USAGE = 1, NOT_FOUND = 2, NO_HANDLER = 3, FAILED = 4, CANCELLED = 5 };

/* The status of each contract error, after ERROR_PREFIX (ExitStatus.init). */
static const struct { const char *name; enum status status; } contract_statuses[] = {
    {"InvalidURL", USAGE},
    {"NoHandler", NO_HANDLER},
    {"LaunchFailed", FAILED},
    {"AccessDenied", FAILED},
    {"ReservedScheme", NO_HANDLER},
    {"InvalidHandler", NOT_FOUND},
    {"RateLimited", FAILED},
    {"NoSuchRequest", FAILED},
    {"NotTheHandler", FAILED},
    {"CallbackNotOwned", FAILED},
    {"NoSuchPasteboard", NOT_FOUND},
    {"QuotaExceeded", FAILED},
    {"NoSuchType", NOT_FOUND},
    {"Cancelled", CANCELLED},
    {"NoChooser", NO_HANDLER},
    {"AmbiguousPasteboard", FAILED},
    {"NoTarget", NO_HANDLER},
    {"NotAppLink", NO_HANDLER},
};

#endif
