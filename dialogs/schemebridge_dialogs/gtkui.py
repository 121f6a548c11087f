"""The dialogs, drawn with GTK 3: the share sheet (a grid of targets grouped Apps, Devices,
More, under a preview of what is shared) and the list dialogs (the handler chooser of
`open --ask` and of a received file, the document picker). One window, one set of keys:
arrows move, Enter or a click does it, Escape cancels, typing searches; the default is first
and selected.
"""

import os

from . import icons, parent, present, thumbnails
from .i18n import _

THUMB = 96          # the preview's size, in pixels
TILE_ICON = 48      # a sheet tile's icon
ROW_ICON = 32       # a list row's icon
COLUMNS = 4
GROUPS = ("app", "device", "builtin")


def load(spare):
    """GTK 3 with the display open; raises (ImportError, ValueError) when it cannot be."""
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    gi.require_version("GdkPixbuf", "2.0")
    from gi.repository import Gtk
    if not Gtk.init_check(None)[0]:
        raise ValueError("GTK cannot open the display (DISPLAY=%r, WAYLAND_DISPLAY=%r)"
                         % (os.environ.get("DISPLAY", ""), os.environ.get("WAYLAND_DISPLAY", "")))
    if spare:
        warm_up(Gtk)
    return Gtk


def warm_up(Gtk):
    """Lays out and draws, off screen, the widgets a dialog is made of — a sheet and a list
    dialog with their header, search bar and buttons — and reads the MIME database and the
    icon theme once, so none of that waits for the request (the spare)."""
    from gi.repository import Gio
    from . import message
    theme = Gtk.IconTheme.get_default()
    for names in list(icons.GENERIC.values()) + list(icons.BUILTIN.values()):
        for n in names:
            theme.has_icon(n)
    Gio.content_type_get_icon("image/png")
    Gio.content_type_get_description("text/plain")
    for kind in ("share", "type"):
        request = message.Request(kind=kind, subject="text/plain", candidates=[message.Candidate("warm-up", "Target", "", "app")],
                                  can_remember=True, share=message.Share(1, ["text/plain"], [message.Item("text", text="…")]))
        dialog = Dialog(Gtk, request)
        dialog.search()  # made when first typed into: warmed here too
        window = dialog.window
        child = window.get_child()
        window.remove(child)
        offscreen = Gtk.OffscreenWindow()
        offscreen.add(child)
        offscreen.show_all()
        while Gtk.events_pending():
            Gtk.main_iteration_do(False)
        offscreen.destroy()
        window.destroy()
    window = Gtk.OffscreenWindow()
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
    title = Gtk.Label(label="Share from …")
    title.get_style_context().add_class("title")
    box.pack_start(title, False, False, 0)
    flow = Gtk.FlowBox()
    tile = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    tile.pack_start(Gtk.Image.new_from_icon_name("application-x-executable", Gtk.IconSize.DIALOG), False, False, 0)
    tile.pack_start(Gtk.Label(label="Target"), False, False, 0)
    flow.add(tile)
    box.pack_start(flow, False, False, 0)
    rows = Gtk.ListBox()
    rows.add(Gtk.Label(label="Row"))
    box.pack_start(rows, False, False, 0)
    box.pack_start(Gtk.CheckButton.new_with_mnemonic("_Always"), False, False, 0)
    box.pack_start(Gtk.Button.new_with_mnemonic("_Cancel"), False, False, 0)
    window.add(box)
    window.show_all()
    while Gtk.events_pending():
        Gtk.main_iteration_do(False)
    window.destroy()


class Dialog:
    """One dialog for `request`; ``run()`` returns (id, always) or None (cancelled)."""

    def __init__(self, Gtk, request, bridge_later=False):
        from gi.repository import Gdk, GdkPixbuf, Gio, GLib, Pango
        self.Gtk, self.Gdk, self.GdkPixbuf, self.Gio, self.GLib, self.Pango = Gtk, Gdk, GdkPixbuf, Gio, GLib, Pango
        self.request = request
        self.result = None
        self.bridge_later = bridge_later   # start the accessibility bridge after the first frame (a11y)
        self.theme = Gtk.IconTheme.get_default()
        self.sheet = request.kind == "share"
        self.views = []          # the FlowBoxes (sheet) or the one ListBox
        self.build()

    # MARK: building

    def build(self):
        Gtk, Gdk, Pango = self.Gtk, self.Gdk, self.Pango
        r = self.request
        title = present.share_title(r) if self.sheet else present.chooser_title(r)
        w = self.window = Gtk.Window(title=title)
        w.set_type_hint(Gdk.WindowTypeHint.DIALOG)
        w.set_position(Gtk.WindowPosition.CENTER)
        w.set_default_size(500 if self.sheet else 420, -1)
        w.set_resizable(False)
        w.set_keep_above(True)
        w.connect("delete-event", lambda *_a: self.finish(None))
        w.connect("key-press-event", self.key)
        # The caller's token: on X11 the window's _NET_STARTUP_ID; on Wayland GDK activates the
        # window with it once it is mapped (``activate``: a compositor ignores an activation of a
        # surface not yet mapped, and the token is used up).
        self.wayland = parent.gtype_name(w.get_display()) == "GdkWaylandDisplay"
        if r.activation_token and not self.wayland:
            w.set_startup_id(r.activation_token)
        if r.parent_window:
            w.connect("realize", lambda *_a: self.attach(r.parent_window))

        outer = self.outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=10, margin=14)
        w.add(outer)
        outer.pack_start(self.header(title), False, False, 0)
        # The search bar (type-ahead) is made when the user first types: an entry is a cold
        # start's costliest widget, and most choices are made without one (``search``).
        self.search_entry = self.search_bar = None

        scroller = Gtk.ScrolledWindow(hscrollbar_policy=Gtk.PolicyType.NEVER)
        scroller.set_propagate_natural_height(True)
        scroller.set_max_content_height(360)
        scroller.set_min_content_height(120 if not self.sheet else -1)
        scroller.add(self.grid() if self.sheet else self.rows())
        outer.pack_start(scroller, True, True, 0)

        bottom = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=8)
        self.check = None
        if r.can_remember:
            self.check = Gtk.CheckButton.new_with_mnemonic(present.always_label(r))
            bottom.pack_start(self.check, False, False, 0)
        self.action = Gtk.Button.new_with_mnemonic(present.action_label(r))
        self.action.get_style_context().add_class("suggested-action")
        self.action.set_can_default(True)
        self.action.connect("clicked", lambda *_a: self.do_it())
        cancel = Gtk.Button.new_with_mnemonic(_("_Cancel"))
        cancel.connect("clicked", lambda *_a: self.finish(None))
        bottom.pack_end(self.action, False, False, 0)
        bottom.pack_end(cancel, False, False, 0)
        outer.pack_end(bottom, False, False, 0)
        w.set_default(self.action)

    def search(self):
        """The search bar under the header, made the first time it is needed."""
        if self.search_bar is None:
            Gtk = self.Gtk
            self.search_entry = Gtk.SearchEntry()
            self.search_entry.get_accessible().set_name(_("Search"))
            self.search_bar = Gtk.SearchBar()
            self.search_bar.add(self.search_entry)
            self.search_bar.connect_entry(self.search_entry)
            self.search_bar.set_show_close_button(False)
            self.search_entry.connect("search-changed", self.filter_changed)
            self.search_entry.connect("activate", lambda *_a: self.do_it())
            self.search_entry.connect("stop-search", lambda *_a: self.stop_search())
            self.outer.pack_start(self.search_bar, False, False, 0)
            self.outer.reorder_child(self.search_bar, 1)
            self.search_bar.show_all()
        return self.search_bar

    def search_text(self):
        return self.search_entry.get_text().strip().lower() if self.search_entry is not None else ""

    def header(self, title):
        """The top: the preview (a share's thumbnail, or the type's icon) beside the title and
        what is shared, or what is opened and who asks."""
        Gtk, Pango = self.Gtk, self.Pango
        r = self.request
        box = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=12)
        lines = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=2)
        lines.set_valign(Gtk.Align.CENTER)
        if self.sheet:
            detail_head, details = present.share_summary(r.share)
            if self.wayland:
                # GTK draws the title bar itself on Wayland, with the title: the heading is
                # then what is shared, not the title again.
                heading_text, texts = detail_head, details
            else:
                heading_text, texts = title, [detail_head] + details
            # Empty in the first frame: the thumbnail, else the type's icon, comes right after it
            # (``show_preview``): a type icon at 64 pixels is Adwaita's 512-pixel picture
            # decoded and scaled, and an image's would be replaced by its thumbnail at once.
            self.preview = Gtk.Image()
            self.preview.set_size_request(THUMB, THUMB)
            self.preview.get_accessible().set_name(_("Preview of %s") % detail_head)
            box.pack_start(self.preview, False, False, 0)
        else:
            heading_text = present.chooser_heading(r, self.describe_type)
            texts = [present.asked_by(r)]
            icon = self.subject_icon()
            if icon is not None:
                image = Gtk.Image.new_from_gicon(icon, Gtk.IconSize.DIALOG)
                image.set_pixel_size(48)
                box.pack_start(image, False, False, 0)
        heading = Gtk.Label(xalign=0)
        heading.set_text(heading_text)  # plain text, never markup
        heading.set_line_wrap(True)
        heading.set_max_width_chars(40)
        heading.get_style_context().add_class("title")
        attrs = Pango.AttrList()
        attrs.insert(Pango.attr_weight_new(Pango.Weight.BOLD))
        attrs.insert(Pango.attr_scale_new(1.15))
        heading.set_attributes(attrs)
        lines.pack_start(heading, False, False, 0)
        for text in texts:
            if not text:
                continue
            label = Gtk.Label(xalign=0)
            label.set_text(text)
            label.set_ellipsize(Pango.EllipsizeMode.MIDDLE)
            label.set_max_width_chars(48)
            label.set_selectable(False)
            label.get_style_context().add_class("dim-label")
            lines.pack_start(label, False, False, 0)
        box.pack_start(lines, True, True, 0)
        return box

    def describe_type(self, content_type):
        try:
            return self.Gio.content_type_get_description(content_type)
        except Exception:  # noqa: BLE001 — a description is a nicety
            return ""

    def subject_icon(self):
        Gio = self.Gio
        r = self.request
        if r.kind == "type":
            return Gio.content_type_get_icon(r.subject)
        if r.kind == "pick":
            return Gio.ThemedIcon.new_with_default_fallbacks("document-open")
        return Gio.ThemedIcon.new_with_default_fallbacks("text-html" if r.subject in ("http", "https") else "emblem-web")

    def share_icon(self):
        Gio = self.Gio
        items = self.request.share.items
        if len(items) == 1 and items[0].kind == "url":
            return Gio.ThemedIcon.new_with_default_fallbacks("text-html")
        if len(items) == 1 and items[0].type:
            return Gio.content_type_get_icon(items[0].type)
        if len(items) > 1:
            return Gio.ThemedIcon.new_with_default_fallbacks("folder-documents")
        return Gio.ThemedIcon.new_with_default_fallbacks("text-x-generic")

    def picture(self, candidate, size):
        Gtk = self.Gtk
        how, what = icons.resolve(candidate.icon, candidate.id, candidate.kind, self.theme.has_icon)
        image = None
        if how == "file":
            try:
                pixbuf = self.GdkPixbuf.Pixbuf.new_from_file_at_scale(what, size, size, True)
                image = Gtk.Image.new_from_pixbuf(pixbuf)
            except Exception:  # noqa: BLE001 — an unreadable image is a generic icon
                how, what = icons.resolve("", candidate.id, candidate.kind, self.theme.has_icon)
        if image is None:
            image = Gtk.Image.new_from_icon_name(what, Gtk.IconSize.DIALOG)
            image.set_pixel_size(size)
        image.get_accessible().set_name("")
        return image

    def grid(self):
        """The sheet's targets: a grid per group, arrows going on from one group to the next."""
        Gtk, Pango = self.Gtk, self.Pango
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
        for kind in GROUPS:
            members = [c for c in self.request.candidates if c.kind == kind]
            if not members:
                continue
            header = Gtk.Label(xalign=0)
            header.set_text(present.group_label(kind))
            header.get_style_context().add_class("dim-label")
            box.pack_start(header, False, False, 0)
            flow = Gtk.FlowBox(selection_mode=Gtk.SelectionMode.SINGLE, homogeneous=True,
                               min_children_per_line=COLUMNS, max_children_per_line=COLUMNS,
                               activate_on_single_click=True)
            flow.set_row_spacing(4)
            flow.set_column_spacing(4)
            flow.get_accessible().set_name(present.group_label(kind))
            for c in members:
                name = present.plain(c.name)
                tile = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4, margin=6)
                tile.pack_start(self.picture(c, TILE_ICON), False, False, 0)
                text = Gtk.Label(justify=Gtk.Justification.CENTER)
                text.set_text(name)
                text.set_line_wrap(True)
                text.set_line_wrap_mode(Pango.WrapMode.WORD_CHAR)
                text.set_lines(2)
                text.set_ellipsize(Pango.EllipsizeMode.END)
                text.set_max_width_chars(12)
                text.set_width_chars(12)
                tile.pack_start(text, False, False, 0)
                child = Gtk.FlowBoxChild()
                child.add(tile)
                child.target = c
                child.search_name = name.lower()
                child.set_tooltip_text(name)
                child.get_accessible().set_name(name)
                flow.add(child)
            flow.connect("child-activated", lambda _f, child: self.finish(child.target))
            flow.connect("keynav-failed", self.keynav_failed)
            flow.connect("selected-children-changed", self.one_selected)
            flow.set_filter_func(self.visible)
            box.pack_start(flow, False, False, 0)
            self.views.append(flow)
        return box

    def rows(self):
        """A chooser's or picker's targets: one list, the default first (and marked)."""
        Gtk, Pango = self.Gtk, self.Pango
        listbox = Gtk.ListBox(selection_mode=Gtk.SelectionMode.BROWSE)
        listbox.set_activate_on_single_click(False)
        listbox.get_accessible().set_name(present.chooser_heading(self.request, self.describe_type))
        for i, c in enumerate(self.request.candidates):
            name = present.plain(c.name)
            line = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=10, margin=6)
            line.pack_start(self.picture(c, ROW_ICON), False, False, 0)
            label = Gtk.Label(xalign=0)
            label.set_text(name)
            label.set_ellipsize(Pango.EllipsizeMode.END)
            line.pack_start(label, True, True, 0)
            if i == 0 and self.request.kind in ("scheme", "type"):
                tag = Gtk.Label(label=_("Default"))
                tag.get_style_context().add_class("dim-label")
                line.pack_end(tag, False, False, 0)
            row = Gtk.ListBoxRow()
            row.add(line)
            row.target = c
            row.search_name = name.lower()
            row.get_accessible().set_name(name if not (i == 0 and self.request.kind in ("scheme", "type"))
                                          else _("%s (default)") % name)
            listbox.add(row)
        listbox.connect("row-activated", lambda _l, row: self.finish(row.target))
        listbox.set_filter_func(self.visible)
        self.views.append(listbox)
        return listbox

    # MARK: behaviour

    def attach(self, parent_window):
        """Transient for the caller's window: `x11:XID` (a foreign X window), or
        `wayland:HANDLE` (exported by the caller with xdg-foreign), as ``parent.attach`` does it.
        A handle that does not fit the display, or a window that is gone, leaves the dialog
        unattached (it still shows, centred); what happened goes to the log."""
        try:
            done = parent.attach(self.window, parent_window)
        except Exception as error:  # noqa: BLE001 — a stale or foreign handle must not stop the dialog
            done = "%s: %s" % (type(error).__name__, error)
        if done not in ("x11", "wayland"):
            parent.note("not attached to the caller's window %s: %s" % (parent_window[:80], done))

    def mapped_once(self, *_a):
        self.window.disconnect(self.mapped)
        for callback, priority in self.after_first_frame:
            self.GLib.idle_add(callback, priority=priority)
        return False

    def configured_once(self, *_a):
        self.window.disconnect(self.configured)
        clock = self.window.get_frame_clock()
        self.first_paint = (clock, clock.connect("after-paint", self.painted_once))
        return False

    def painted_once(self, *_a):
        clock, handler = self.first_paint
        clock.disconnect(handler)
        for callback, priority in self.after_first_frame:
            self.GLib.idle_add(callback, priority=priority)

    def activate(self):
        """On Wayland, once mapped: focus with the caller's activation token (xdg_activation_v1)."""
        try:
            if parent.set_wayland_startup_id(self.window.get_display(), self.request.activation_token):
                self.window.get_window().focus(self.Gdk.CURRENT_TIME)
        except Exception as error:  # noqa: BLE001 — focus is a nicety; the dialog stays up
            parent.note("could not take the focus with the caller's token: %s: %s" % (type(error).__name__, error))
        return False

    def visible(self, child):
        text = self.search_text()
        return not text or text in child.search_name

    def filter_changed(self, *_a):
        for view in self.views:
            view.invalidate_filter()
        self.select_first()

    def stop_search(self):
        if self.search_bar is not None:
            self.search_entry.set_text("")
            self.search_bar.set_search_mode(False)
        self.focus_selected()

    def select_first(self):
        for view in self.views:
            kids = [c for c in view.get_children() if self.visible(c)]
            if kids:
                if isinstance(view, self.Gtk.ListBox):
                    view.select_row(kids[0])
                else:
                    view.select_child(kids[0])
                self.one_selected(view)
                return kids[0]
        return None

    def focus_selected(self):
        child = self.current()
        if child is not None:
            child.grab_focus()

    def current(self):
        for view in self.views:
            if isinstance(view, self.Gtk.ListBox):
                row = view.get_selected_row()
                if row is not None and self.visible(row):
                    return row
            else:
                for child in view.get_selected_children():
                    if self.visible(child):
                        return child
        return None

    def one_selected(self, view):
        # One target is selected in the whole sheet, whichever group it is in.
        if isinstance(view, self.Gtk.FlowBox) and view.get_selected_children():
            for other in self.views:
                if other is not view:
                    other.unselect_all()

    def keynav_failed(self, view, direction):
        # Arrows at a group's edge go on to the next (or previous) group.
        i = self.views.index(view)
        down = direction in (self.Gtk.DirectionType.DOWN, self.Gtk.DirectionType.RIGHT)
        j = i + 1 if down else i - 1
        while 0 <= j < len(self.views):
            kids = [c for c in self.views[j].get_children() if self.visible(c)]
            if kids:
                child = kids[0] if down else kids[-1]
                self.views[j].select_child(child)
                child.grab_focus()
                return True
            j = j + 1 if down else j - 1
        return False

    def key(self, _w, event):
        Gdk = self.Gdk
        searching = self.search_entry is not None and self.window.get_focus() is self.search_entry
        if event.keyval == Gdk.KEY_Escape:
            if self.search_bar is not None and self.search_bar.get_search_mode() and self.search_entry.get_text():
                self.stop_search()
                return True
            self.finish(None)
            return True
        if event.keyval in (Gdk.KEY_Return, Gdk.KEY_KP_Enter, Gdk.KEY_ISO_Enter):
            focus = self.window.get_focus()
            if focus is None or focus is self.check or searching:
                self.do_it()
                return True
            # A target with the focus: chosen here, not through GTK's key bindings, which miss
            # the key under a keymap that changed after the window came up (a Wayland seat whose
            # keyboard appeared later).
            if getattr(focus, "target", None) is not None:
                self.finish(focus.target)
                return True
            return False
        if event.keyval in (Gdk.KEY_Down, Gdk.KEY_Up) and searching:
            self.focus_selected()
            return False
        # Typing a name searches (type-ahead), wherever the focus is; Alt and Ctrl keys are
        # mnemonics and shortcuts, never search text.
        if event.state & (Gdk.ModifierType.MOD1_MASK | Gdk.ModifierType.CONTROL_MASK):
            return False
        if searching:
            return False
        if self.search_bar is None:
            # Only a key that types something makes the search bar.
            char = Gdk.keyval_to_unicode(event.keyval)
            if not char or not chr(char).isprintable() or chr(char).isspace():
                return False
        if self.search().handle_event(event):
            return True
        return False

    def do_it(self):
        child = self.current() or self.select_first()
        if child is not None:
            self.finish(child.target)

    def finish(self, target):
        if target is None:
            self.result = None
        else:
            self.result = (target.id, bool(self.check and self.check.get_active()), self.launch_token(target))
        self.Gtk.main_quit()
        return True

    def launch_token(self, target):
        """A fresh activation token for the app the user chose, obtained now, while the event
        that chose is the current one (the caller's token was spent on this window: the app must
        not be handed it again). On Wayland the compositor's (``xdg_activation_v1``, through
        GDK's launch context); on X11 a startup id carrying the choosing event's time, which the
        window manager weighs against the user's last input. None for a device or SchemeBridge's
        own actions (no app is started), or when none can be had (the log says why)."""
        if target.kind != "app":
            return None
        try:
            if self.wayland:
                return parent.wayland_launch_token(self.window, target.name)
            return parent.x11_startup_id(self.window, target.id, self.Gtk.get_current_event_time())
        except Exception as error:  # noqa: BLE001 — the app still starts, without a token
            parent.note("no activation token for the launch of %s: %s: %s" % (target.id[:80], type(error).__name__, error))
            return None

    def show_preview(self):
        """The share's thumbnail, after the first frame (so it never delays the sheet): the
        desktop's cached thumbnail when fresh, else the image scaled by its loader (a JPEG is
        decoded at 1/2 … 1/8 of its size); else the type's icon."""
        if not self.thumbnail():
            self.preview.set_from_gicon(self.share_icon(), self.Gtk.IconSize.DIALOG)
            self.preview.set_pixel_size(64)
        return False

    def thumbnail(self):
        """Shows the first image's (or video's) thumbnail; False when there is none."""
        items = self.request.share.items if self.sheet else []
        images = [i for i in items if i.kind in ("file", "data") and i.path and (i.type.startswith("image/") or i.type.startswith("video/"))]
        if not images:
            return False
        item = images[0]
        pixbuf = None
        original = thumbnails.original_path(item.path)
        if original:
            try:
                mtime = os.stat(item.path).st_mtime
                for cached in thumbnails.cached_paths(original):
                    if os.path.isfile(cached):
                        p = self.GdkPixbuf.Pixbuf.new_from_file(cached)
                        if thumbnails.is_fresh(p.get_option("tEXt::Thumb::MTime"), mtime):
                            pixbuf = p.scale_simple(*fit(p.get_width(), p.get_height(), THUMB), self.GdkPixbuf.InterpType.BILINEAR)
                            break
            except Exception:  # noqa: BLE001 — a broken cache entry: scale the image itself
                pixbuf = None
        if pixbuf is None and item.type.startswith("image/"):
            try:
                pixbuf = self.GdkPixbuf.Pixbuf.new_from_file_at_scale(item.path, THUMB, THUMB, True)
                pixbuf = pixbuf.apply_embedded_orientation() or pixbuf
            except Exception:  # noqa: BLE001 — not an image after all: the type's icon stays
                pixbuf = None
        if pixbuf is not None:
            self.preview.set_from_pixbuf(pixbuf)
        return pixbuf is not None

    def start_bridge(self):
        """The accessibility bridge, once the window is on screen (a11y)."""
        try:
            from . import a11y
            a11y.start()  # not 0 without an accessibility bus (no session bus): GTK says nothing then either
        except Exception as error:  # noqa: BLE001 — the dialog works without it
            parent.note("the accessibility bridge did not start: %s: %s" % (type(error).__name__, error))
        return False

    def run(self):
        # The window's contents are shown, the window itself by present() below: a present()
        # after the window's show_all() would take its _NET_STARTUP_ID (the activation token) away.
        self.window.get_child().show_all()
        first = self.select_first()
        if first is not None:
            first.grab_focus()
        # present() shows the window (a present() after show_all() would take its _NET_STARTUP_ID away).
        self.window.present()
        # What waits for the first frame: the preview, the focus with the caller's token
        # (Wayland), the accessibility bridge.
        self.after_first_frame = []
        if self.sheet:
            self.after_first_frame.append((self.show_preview, self.GLib.PRIORITY_LOW))
        if self.wayland and self.request.activation_token:
            self.after_first_frame.append((self.activate, self.GLib.PRIORITY_DEFAULT))
        if self.bridge_later:
            self.after_first_frame.append((self.start_bridge, self.GLib.PRIORITY_LOW))
        if self.after_first_frame:
            if self.wayland:
                # On Wayland GDK's map event comes before the first buffer: what waits for the
                # first frame waits for the compositor's configure, then the next frame's
                # after-paint (GDK commits the buffer there); the surface is mapped by then.
                self.configured = self.window.connect("configure-event", self.configured_once)
            else:
                # On X11 the first paint follows the map at a higher priority than these idles.
                self.mapped = self.window.connect("map-event", self.mapped_once)
        self.Gtk.main()
        return self.result


def fit(width, height, box):
    """(w, h) of a `width`×`height` picture scaled to fit a `box`-pixel square."""
    if width <= 0 or height <= 0:
        return box, box
    scale = min(box / width, box / height, 1.0)
    return max(1, round(width * scale)), max(1, round(height * scale))
