import DBus
import SchemeBridgeContract

/// The C lean entry point's names, paths and exit statuses (`Sources/schemebridge-lean/contract.h`),
/// written from the contract and ``ExitStatus``: the C program spells none of them itself.
/// The header is checked in (the C build needs no Swift); `LeanEntryHeaderTests` fails when it is not
/// ``text``, and `make lean-header` writes it again (docs/DEVELOPING.md).
public enum LeanEntryHeader {
    /// The full command line the lean entry point runs for anything but a plain `open` of URLs and files.
    public static let fullCommandLine = "schemebridge-cli"

    /// The exit statuses, as C enumerators.
    static let statuses: [(String, ExitStatus)] = [
        ("SUCCESS", .success), ("USAGE", .usage), ("NOT_FOUND", .notFound), ("NO_HANDLER", .noHandler), ("FAILED", .failed), ("CANCELLED", .cancelled),
    ]

    /// The header's text.
    public static var text: String {
        func quoted(_ s: String) -> String { "\"" + s + "\"" }
        func name(_ status: ExitStatus) -> String { statuses.first { $0.1 == status }!.0 }
        let errors = ContractError.allCases.map { error in
            "    {\(quoted(error.rawValue)), \(name(ExitStatus(DBusError(error.name, ""))))},"
        }
        return """
            /* Generated from SchemeBridgeContract and SchemeBridgeCLIKit (LeanEntryHeader.swift): do not edit.
             * `make lean-header` writes it; LeanEntryHeaderTests fails when it differs from the contract. */
            #ifndef SCHEMEBRIDGE_LEAN_CONTRACT_H
            #define SCHEMEBRIDGE_LEAN_CONTRACT_H

            /* Contract.busName, objectPath, interface, errorPrefix; ContractMethod; OpenOptions.Key, DocumentMode. */
            #define SERVICE \(quoted(Contract.busName.rawValue))
            #define OBJECT_PATH \(quoted(Contract.objectPath.rawValue))
            #define INTERFACE \(quoted(Contract.interface.rawValue))
            #define ERROR_PREFIX \(quoted(Contract.errorPrefix))
            #define METHOD_OPEN_URL \(quoted(ContractMethod.openURL.rawValue))
            #define METHOD_OPEN_URL_WITH_OPTIONS \(quoted(ContractMethod.openURLWithOptions.rawValue))
            #define METHOD_OPEN_FILE \(quoted(ContractMethod.openFile.rawValue))
            #define OPTION_ACTIVATION_TOKEN \(quoted(OpenOptions.Key.activationToken))
            #define OPTION_MODE \(quoted(OpenOptions.Key.mode))
            #define MODE_IN_PLACE \(quoted(OpenOptions.DocumentMode.inPlace.rawValue))
            #define FULL_CLI \(quoted(fullCommandLine))

            /* The exit statuses of schemebridge, xdg-open's (ExitStatus). */
            enum status { \(statuses.map { "\($0.0) = \($0.1.rawValue)" }.joined(separator: ", ")) };

            /* The status of each contract error, after ERROR_PREFIX (ExitStatus.init). */
            static const struct { const char *name; enum status status; } contract_statuses[] = {
            \(errors.joined(separator: "\n"))
            };

            #endif

            """
    }
}
