// KDE Connect 22.12's receiving fix from 23.08, for the device tests' engines (LD_PRELOAD).
//
// kdeconnectd 22.12 (daemon/kdeconnectd.cpp) stores every received file through a
// KIO::AccessManager, which misses the end of a payload whose data and close arrived before
// its `put` began: the file stays a `.part` and every later file from that device waits
// behind it (docs/GUIDE.md, "When a file does not arrive"). Upstream's 23.08 fix (commit
// 2c2e883, "Don't use KIO::AccessManager") drops that override, so the daemon stores through a
// plain QNetworkAccessManager. This library does the same in Debian's 22.12 binary: it takes
// the place of KIO::AccessManager's constructor, the only thing the daemon uses of the class,
// and builds a plain QNetworkAccessManager in the memory the daemon allocated for it (the
// derived class is larger). Nothing else of the engine changes.
//
// Built by the tests (KDEConnectPair.ReceivingFix) with g++ and qtbase5-dev; never installed.
// The one line on stderr lets a test see that the engine it started really used it.
#include <QNetworkAccessManager>
#include <cstdio>
#include <new>

// KIO::AccessManager::AccessManager(QObject *), complete-object and base-object constructors.
extern "C" void sb_plain_access_manager_c1(void *self, QObject *parent) __asm__("_ZN3KIO13AccessManagerC1EP7QObject");
extern "C" void sb_plain_access_manager_c2(void *self, QObject *parent) __asm__("_ZN3KIO13AccessManagerC2EP7QObject");

static void make(void *self, QObject *parent)
{
    new (self) QNetworkAccessManager(parent);
    std::fputs("sb-receiving-fix: files are stored through a plain QNetworkAccessManager\n", stderr);
}

void sb_plain_access_manager_c1(void *self, QObject *parent) { make(self, parent); }
void sb_plain_access_manager_c2(void *self, QObject *parent) { make(self, parent); }
