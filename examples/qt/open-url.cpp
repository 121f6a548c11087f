// open-url (Qt): SchemeBridge from C++ with QtDBus.
//
//   open-url-qt URL [FILE]
//
// Asks whether URL can be opened, opens it (returns once its handler has started) and, with
// FILE, asks the content type of that file by passing its descriptor as a
// QDBusUnixFileDescriptor (the "h" of ContentTypeForFile). QDBusInterface checks each call
// against the interface the service reports, which is the shipped
// dbus/io.github.schemebridge.SchemeBridge1.xml. Exit status as schemebridge open: 0 opened,
// 1 malformed URL, 3 no handler or no service, 4 any other failure.
#include <QCoreApplication>
#include <QDBusConnection>
#include <QDBusError>
#include <QDBusInterface>
#include <QDBusReply>
#include <QDBusUnixFileDescriptor>
#include <QFileInfo>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

static const char kName[] = "io.github.schemebridge.SchemeBridge1";
static const char kPath[] = "/io/github/schemebridge/SchemeBridge1";

// The exit status for a D-Bus error, as schemebridge maps its name.
static int statusFor(const QDBusError &error)
{
    const QString prefix = QStringLiteral("io.github.schemebridge.SchemeBridge1.Error.");
    const QString name = error.name();
    if (name == prefix + QStringLiteral("InvalidURL"))
        return 1;
    if (name == prefix + QStringLiteral("NoHandler") || name == prefix + QStringLiteral("ReservedScheme")
        || name == QStringLiteral("org.freedesktop.DBus.Error.ServiceUnknown"))
        return 3;
    return 4;
}

static int fail(const char *what, const QDBusError &error)
{
    std::fprintf(stderr, "open-url-qt: %s: %s (%s)\n", what, qPrintable(error.message()), qPrintable(error.name()));
    return statusFor(error);
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s URL [FILE]\n", argv[0]);
        return 1;
    }
    const QString url = QString::fromLocal8Bit(argv[1]);
    // The session bus of the environment ($DBUS_SESSION_BUS_ADDRESS); the bus starts the service.
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return fail("cannot reach the session bus", bus.lastError());
    QDBusInterface service(kName, kPath, kName, bus);
    if (!service.isValid())
        return fail("cannot reach SchemeBridge", service.lastError());

    QDBusReply<bool> canOpen = service.call(QStringLiteral("CanOpenURL"), url);
    if (!canOpen.isValid())
        return fail("CanOpenURL", canOpen.error());
    std::printf("can open %s: %s\n", qPrintable(url), canOpen.value() ? "yes" : "no");

    QDBusReply<bool> opened = service.call(QStringLiteral("OpenURL"), url);
    if (!opened.isValid())
        return fail("OpenURL", opened.error());
    std::printf("opened %s\n", qPrintable(url));

    if (argc == 3) {
        const int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            std::perror(argv[2]);
            return 2;
        }
        const QDBusUnixFileDescriptor descriptor(fd);  // keeps a duplicate of its own
        close(fd);
        const QString name = QFileInfo(QString::fromLocal8Bit(argv[2])).fileName();
        QDBusReply<QString> type = service.call(QStringLiteral("ContentTypeForFile"), QVariant::fromValue(descriptor), name);
        if (!type.isValid())
            return fail("ContentTypeForFile", type.error());
        std::printf("type of %s: %s\n", qPrintable(name), qPrintable(type.value()));
    }
    return 0;
}
