/// Builds introspection XML from interface declarations.
public enum Introspection {
    /// The DOCTYPE line every introspection document starts with.
    public static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        """

    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// The `<interface>` element for `interface`, indented by `indent` spaces.
    public static func xml(for interface: Interface, indent: Int = 2) -> String {
        let pad = String(repeating: " ", count: indent)
        var out = "\(pad)<interface name=\"\(interface.name)\">\n"
        for m in interface.methods {
            if m.inputs.isEmpty && m.outputs.isEmpty && m.annotations.isEmpty {
                out += "\(pad)  <method name=\"\(m.name)\"/>\n"
                continue
            }
            out += "\(pad)  <method name=\"\(m.name)\">\n"
            for a in m.inputs {
                out += "\(pad)    <arg name=\"\(escape(a.name))\" type=\"\(a.type.signature)\" direction=\"in\"/>\n"
            }
            for a in m.outputs {
                out += "\(pad)    <arg name=\"\(escape(a.name))\" type=\"\(a.type.signature)\" direction=\"out\"/>\n"
            }
            for (k, v) in m.annotations {
                out += "\(pad)    <annotation name=\"\(escape(k))\" value=\"\(escape(v))\"/>\n"
            }
            out += "\(pad)  </method>\n"
        }
        for s in interface.signals {
            if s.arguments.isEmpty {
                out += "\(pad)  <signal name=\"\(s.name)\"/>\n"
                continue
            }
            out += "\(pad)  <signal name=\"\(s.name)\">\n"
            for a in s.arguments {
                out += "\(pad)    <arg name=\"\(escape(a.name))\" type=\"\(a.type.signature)\"/>\n"
            }
            out += "\(pad)  </signal>\n"
        }
        for p in interface.properties {
            let open = "\(pad)  <property name=\"\(p.name)\" type=\"\(p.type.signature)\" access=\"\(p.access.rawValue)\""
            if p.emitsChanged == .true {
                out += open + "/>\n"
            } else {
                out += open + ">\n"
                out += "\(pad)    <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(p.emitsChanged.rawValue)\"/>\n"
                out += "\(pad)  </property>\n"
            }
        }
        out += "\(pad)</interface>\n"
        return out
    }

    /// A complete document for an object exporting `interfaces` with child nodes `children`.
    /// The standard Peer, Introspectable and Properties interfaces are listed first.
    public static func document(interfaces: [Interface], children: [String]) -> String {
        var out = doctype + "\n<node>\n"
        out += standardInterfacesXML(withProperties: true)
        for i in interfaces.sorted(by: { $0.name < $1.name }) { out += xml(for: i) }
        for c in children { out += "  <node name=\"\(escape(c))\"/>\n" }
        out += "</node>\n"
        return out
    }

    /// A document for a path with no object of its own, only children.
    static func childrenOnly(_ children: [String]) -> String {
        var out = doctype + "\n<node>\n"
        out += standardInterfacesXML(withProperties: false)
        for c in children { out += "  <node name=\"\(escape(c))\"/>\n" }
        out += "</node>\n"
        return out
    }

    static func standardInterfacesXML(withProperties: Bool) -> String {
        var out = """
              <interface name="org.freedesktop.DBus.Peer">
                <method name="Ping"/>
                <method name="GetMachineId">
                  <arg name="machine_uuid" type="s" direction="out"/>
                </method>
              </interface>
              <interface name="org.freedesktop.DBus.Introspectable">
                <method name="Introspect">
                  <arg name="xml_data" type="s" direction="out"/>
                </method>
              </interface>

            """
        if withProperties {
            out += """
                  <interface name="org.freedesktop.DBus.Properties">
                    <method name="Get">
                      <arg name="interface_name" type="s" direction="in"/>
                      <arg name="property_name" type="s" direction="in"/>
                      <arg name="value" type="v" direction="out"/>
                    </method>
                    <method name="GetAll">
                      <arg name="interface_name" type="s" direction="in"/>
                      <arg name="properties" type="a{sv}" direction="out"/>
                    </method>
                    <method name="Set">
                      <arg name="interface_name" type="s" direction="in"/>
                      <arg name="property_name" type="s" direction="in"/>
                      <arg name="value" type="v" direction="in"/>
                    </method>
                    <signal name="PropertiesChanged">
                      <arg name="interface_name" type="s"/>
                      <arg name="changed_properties" type="a{sv}"/>
                      <arg name="invalidated_properties" type="as"/>
                    </signal>
                  </interface>

                """
        }
        return out
    }
}
