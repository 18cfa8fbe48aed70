using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;

namespace Cupid
{
    // Wire reads the server's JSON (protobuf's JSON mapping: lowerCamelCase
    // names, 64-bit integers as strings, timestamps as RFC 3339, durations
    // as "1.5s", enums by name) out of the parsed dictionaries, and checks
    // the caller's attribute values before they are sent. A field the server
    // leaves out is its zero value, as in protobuf.
    static class Wire
    {
        public static Dictionary<string, object> Obj(Dictionary<string, object> o, string key)
        {
            object v;
            return o != null && o.TryGetValue(key, out v) ? v as Dictionary<string, object> : null;
        }

        public static string Str(Dictionary<string, object> o, string key)
        {
            object v;
            return o != null && o.TryGetValue(key, out v) && v is string ? (string)v : "";
        }

        public static bool Bool(Dictionary<string, object> o, string key)
        {
            object v;
            return o != null && o.TryGetValue(key, out v) && v is bool && (bool)v;
        }

        public static double Double(Dictionary<string, object> o, string key)
        {
            object v;
            if (o == null || !o.TryGetValue(key, out v) || v == null) return 0;
            if (v is double) return (double)v;
            var s = v as string; // "NaN", "Infinity" in protobuf's JSON
            double d;
            return s != null && double.TryParse(s, NumberStyles.Float, CultureInfo.InvariantCulture, out d) ? d : 0;
        }

        public static long Long(Dictionary<string, object> o, string key)
        {
            object v;
            if (o == null || !o.TryGetValue(key, out v) || v == null) return 0;
            if (v is double) return (long)(double)v;
            var s = v as string;
            long n;
            return s != null && long.TryParse(s, NumberStyles.Integer, CultureInfo.InvariantCulture, out n) ? n : 0;
        }

        public static int Int(Dictionary<string, object> o, string key)
        {
            return (int)Long(o, key);
        }

        public static DateTime? Time(Dictionary<string, object> o, string key)
        {
            string s = Str(o, key);
            if (s == "") return null;
            DateTime t;
            if (DateTime.TryParse(s, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out t))
                return t;
            return null;
        }

        public static TimeSpan? Duration(Dictionary<string, object> o, string key)
        {
            string s = Str(o, key);
            if (!s.EndsWith("s")) return null;
            double secs;
            if (!double.TryParse(s.Substring(0, s.Length - 1), NumberStyles.Float, CultureInfo.InvariantCulture, out secs)) return null;
            return TimeSpan.FromTicks((long)(secs * TimeSpan.TicksPerSecond));
        }

        public static List<T> List<T>(Dictionary<string, object> o, string key, Func<object, T> item)
        {
            var res = new List<T>();
            object v;
            if (o == null || !o.TryGetValue(key, out v)) return res;
            var list = v as List<object>;
            if (list == null) return res;
            foreach (var x in list) res.Add(item(x));
            return res;
        }

        public static List<string> Strings(Dictionary<string, object> o, string key)
        {
            return List(o, key, x => x as string ?? "");
        }

        public static List<T> Objects<T>(Dictionary<string, object> o, string key, Func<Dictionary<string, object>, T> read)
        {
            return List(o, key, x => read(x as Dictionary<string, object>));
        }

        public static Dictionary<string, T> Map<T>(Dictionary<string, object> o, string key, Func<object, T> item)
        {
            var res = new Dictionary<string, T>();
            var m = Obj(o, key);
            if (m == null) return res;
            foreach (var kv in m) res[kv.Key] = item(kv.Value);
            return res;
        }

        public static T Enum<T>(Dictionary<string, object> o, string key, string prefix, T unknown) where T : struct
        {
            string s = Str(o, key);
            if (!s.StartsWith(prefix)) return unknown;
            string name = s.Substring(prefix.Length).Replace("_", "");
            T v;
            return System.Enum.TryParse(name, true, out v) ? v : unknown;
        }

        /// <summary>
        /// Value checks and converts an attribute value of the caller's to what
        /// the server accepts (a number, a string, a bool, or a list of them),
        /// or refuses it as the server would: invalid_argument naming the field.
        /// </summary>
        public static object Value(object v, string field)
        {
            if (v == null) throw new CupidException("invalid_argument", field + ": an attribute value may not be null", field);
            if (v is string || v is bool) return v;
            if (v is double || v is float || v is int || v is long || v is short || v is sbyte || v is byte || v is uint || v is ushort || v is ulong || v is decimal)
            {
                double d = Convert.ToDouble(v, CultureInfo.InvariantCulture);
                if (double.IsNaN(d) || double.IsInfinity(d))
                    throw new CupidException("invalid_argument", field + ": must be a finite number", field);
                return d;
            }
            if (v is IDictionary)
                throw new CupidException("invalid_argument", field + ": must be a number, a string, a bool or a list, not an object", field);
            var list = v as IEnumerable;
            if (list != null)
            {
                var res = new List<object>();
                int i = 0;
                foreach (var x in list)
                {
                    string f = field + "[" + i + "]";
                    if (x is IEnumerable && !(x is string))
                        throw new CupidException("invalid_argument", f + ": a list may not hold lists", f);
                    res.Add(Value(x, f));
                    i++;
                }
                return res;
            }
            throw new CupidException("invalid_argument", field + ": " + v.GetType().Name + " is not a number, a string, a bool or a list", field);
        }

        public static Dictionary<string, object> Values(IDictionary<string, object> attrs, string field)
        {
            var res = new Dictionary<string, object>();
            if (attrs == null) return res;
            foreach (var kv in attrs) res[kv.Key] = Value(kv.Value, field + "." + kv.Key);
            return res;
        }
    }
}
