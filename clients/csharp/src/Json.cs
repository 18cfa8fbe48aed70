// Json is the client's own small JSON reader and writer. Unity's older
// runtimes and mono ship no System.Text.Json, and DataContractJsonSerializer
// cannot read protobuf's JSON (maps as objects, google.protobuf.Value as any
// JSON value, 64-bit integers as strings), so the client reads JSON into
// plain values and maps them itself.
//
// Parsed values are: null, bool, double, string, List<object> and
// Dictionary<string, object>. Written values may also be any integer or
// floating-point type, IDictionary with string keys, and any IEnumerable.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Cupid
{
    /// <summary>A minimal JSON reader and writer over plain .NET values.</summary>
    public static class Json
    {
        /// <summary>Parses one JSON value; trailing text other than white space is an error.</summary>
        public static object Parse(string text)
        {
            if (text == null) throw new ArgumentNullException("text");
            var r = new Reader(text);
            r.SkipSpace();
            object v = r.ReadValue(0);
            r.SkipSpace();
            if (r.Pos != text.Length) throw r.Error("unexpected text after the value");
            return v;
        }

        /// <summary>Writes a value as compact JSON.</summary>
        public static string Write(object value)
        {
            var sb = new StringBuilder();
            WriteValue(sb, value, "", 0);
            return sb.ToString();
        }

        // The deepest nesting read or written: a guard against a hostile or
        // cyclic value, far beyond anything the API sends.
        const int MaxDepth = 64;

        static void WriteValue(StringBuilder sb, object v, string path, int depth)
        {
            if (depth > MaxDepth) throw new ArgumentException(Where(path) + "nested too deeply (or a cycle)");
            if (v == null) { sb.Append("null"); return; }
            var s = v as string;
            if (s != null) { WriteString(sb, s); return; }
            if (v is bool) { sb.Append((bool)v ? "true" : "false"); return; }
            if (v is double || v is float)
            {
                double d = Convert.ToDouble(v, CultureInfo.InvariantCulture);
                if (double.IsNaN(d) || double.IsInfinity(d))
                    throw new ArgumentException(Where(path) + "must be a finite number, got " + d.ToString(CultureInfo.InvariantCulture));
                sb.Append(d.ToString("R", CultureInfo.InvariantCulture));
                return;
            }
            if (v is int || v is long || v is short || v is sbyte || v is byte || v is ushort || v is uint || v is ulong || v is decimal)
            {
                sb.Append(Convert.ToString(v, CultureInfo.InvariantCulture));
                return;
            }
            var dict = v as IDictionary;
            if (dict != null)
            {
                sb.Append('{');
                bool first = true;
                foreach (DictionaryEntry e in dict)
                {
                    var key = e.Key as string;
                    if (key == null) throw new ArgumentException(Where(path) + "object keys must be strings");
                    if (!first) sb.Append(',');
                    first = false;
                    WriteString(sb, key);
                    sb.Append(':');
                    WriteValue(sb, e.Value, path == "" ? key : path + "." + key, depth + 1);
                }
                sb.Append('}');
                return;
            }
            var list = v as IEnumerable;
            if (list != null)
            {
                sb.Append('[');
                int i = 0;
                foreach (var item in list)
                {
                    if (i > 0) sb.Append(',');
                    WriteValue(sb, item, path + "[" + i + "]", depth + 1);
                    i++;
                }
                sb.Append(']');
                return;
            }
            throw new ArgumentException(Where(path) + "cannot be written as JSON: " + v.GetType().Name);
        }

        static string Where(string path)
        {
            return path == "" ? "" : path + ": ";
        }

        static void WriteString(StringBuilder sb, string s)
        {
            sb.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    case '\b': sb.Append("\\b"); break;
                    case '\f': sb.Append("\\f"); break;
                    default:
                        if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4"));
                        else sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }

        sealed class Reader
        {
            readonly string s;
            public int Pos;

            public Reader(string s) { this.s = s; }

            public FormatException Error(string what)
            {
                return new FormatException("JSON at offset " + Pos + ": " + what);
            }

            public void SkipSpace()
            {
                while (Pos < s.Length && (s[Pos] == ' ' || s[Pos] == '\t' || s[Pos] == '\n' || s[Pos] == '\r')) Pos++;
            }

            public object ReadValue(int depth)
            {
                if (depth > MaxDepth) throw Error("nested too deeply");
                if (Pos >= s.Length) throw Error("unexpected end");
                char c = s[Pos];
                switch (c)
                {
                    case '{': return ReadObject(depth);
                    case '[': return ReadArray(depth);
                    case '"': return ReadString();
                    case 't': Expect("true"); return true;
                    case 'f': Expect("false"); return false;
                    case 'n': Expect("null"); return null;
                }
                if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber();
                throw Error("unexpected character '" + c + "'");
            }

            void Expect(string word)
            {
                if (string.CompareOrdinal(s, Pos, word, 0, word.Length) != 0) throw Error("expected " + word);
                Pos += word.Length;
            }

            Dictionary<string, object> ReadObject(int depth)
            {
                var o = new Dictionary<string, object>();
                Pos++; // {
                SkipSpace();
                if (Pos < s.Length && s[Pos] == '}') { Pos++; return o; }
                while (true)
                {
                    SkipSpace();
                    if (Pos >= s.Length || s[Pos] != '"') throw Error("expected a string key");
                    string key = ReadString();
                    SkipSpace();
                    if (Pos >= s.Length || s[Pos] != ':') throw Error("expected ':'");
                    Pos++;
                    SkipSpace();
                    o[key] = ReadValue(depth + 1);
                    SkipSpace();
                    if (Pos >= s.Length) throw Error("unexpected end in an object");
                    if (s[Pos] == ',') { Pos++; continue; }
                    if (s[Pos] == '}') { Pos++; return o; }
                    throw Error("expected ',' or '}'");
                }
            }

            List<object> ReadArray(int depth)
            {
                var a = new List<object>();
                Pos++; // [
                SkipSpace();
                if (Pos < s.Length && s[Pos] == ']') { Pos++; return a; }
                while (true)
                {
                    SkipSpace();
                    a.Add(ReadValue(depth + 1));
                    SkipSpace();
                    if (Pos >= s.Length) throw Error("unexpected end in an array");
                    if (s[Pos] == ',') { Pos++; continue; }
                    if (s[Pos] == ']') { Pos++; return a; }
                    throw Error("expected ',' or ']'");
                }
            }

            string ReadString()
            {
                Pos++; // opening quote
                var sb = new StringBuilder();
                while (true)
                {
                    if (Pos >= s.Length) throw Error("unterminated string");
                    char c = s[Pos++];
                    if (c == '"') return sb.ToString();
                    if (c < 0x20) throw Error("control character in a string");
                    if (c != '\\') { sb.Append(c); continue; }
                    if (Pos >= s.Length) throw Error("unterminated escape");
                    char e = s[Pos++];
                    switch (e)
                    {
                        case '"': sb.Append('"'); break;
                        case '\\': sb.Append('\\'); break;
                        case '/': sb.Append('/'); break;
                        case 'b': sb.Append('\b'); break;
                        case 'f': sb.Append('\f'); break;
                        case 'n': sb.Append('\n'); break;
                        case 'r': sb.Append('\r'); break;
                        case 't': sb.Append('\t'); break;
                        case 'u':
                            if (Pos + 4 > s.Length) throw Error("short \\u escape");
                            int code;
                            if (!int.TryParse(s.Substring(Pos, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out code))
                                throw Error("bad \\u escape");
                            sb.Append((char)code); // surrogate pairs arrive as two escapes, in order
                            Pos += 4;
                            break;
                        default: throw Error("bad escape \\" + e);
                    }
                }
            }

            double ReadNumber()
            {
                int start = Pos;
                if (s[Pos] == '-') Pos++;
                while (Pos < s.Length && "0123456789.eE+-".IndexOf(s[Pos]) >= 0) Pos++;
                double d;
                if (!double.TryParse(s.Substring(start, Pos - start), NumberStyles.Float, CultureInfo.InvariantCulture, out d))
                {
                    Pos = start;
                    throw Error("bad number");
                }
                return d;
            }
        }
    }
}
