package org.jverity.cli.syntax;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command-line syntax of one command (or of a group of options several commands share): its
 * options and positional parameters, each with the code that stores its value in a {@code T}.
 * Declared in code, not with annotations: reading annotations at run time costs a dynamic proxy
 * class per annotation type, and with the reflection around it was most of a short command's
 * start-up (see README, "Start-up").
 *
 * <p>Parsing follows popt, as veritysetup does: options and parameters in any order, {@code
 * --name=VALUE} or {@code --name VALUE}, {@code -x VALUE} or {@code -xVALUE}, clustered short flags
 * ({@code -rv}), {@code --} ends the options, and a repeated option means the last one (a
 * repeatable option's setter adds instead). Immutable once built; thread-safe.
 *
 * @param <T> what the parsed values are stored in
 */
public final class Syntax<T> {
  /**
   * One option.
   *
   * @param names its names, short first ({@code -h}, {@code --hash})
   * @param label the value's name in help ({@code ALG}), or null for a flag
   * @param help one sentence or a few
   * @param required whether the command line must give it
   * @param set stores a value ("" for a flag) in the target; may throw {@link BadValue}
   * @param file stores a file name already made a path, for a value that names a file (a config
   *     file resolves it against its own directory); null for other values
   * @param location whether the value may also be a URL ({@link Location}), which a config file
   *     takes as it is
   */
  public record Option<T>(
      List<String> names,
      String label,
      String help,
      boolean required,
      BiConsumer<T, String> set,
      BiConsumer<T, Path> file,
      boolean location) {
    public boolean takesValue() {
      return label != null;
    }

    /** The name given in messages: the longest. */
    public String name() {
      return names.getLast();
    }

    /**
     * Its name as a config file's key: the long name without dashes, or its alias in {@link
     * #KEY_ALIASES}; null for an option with no long name.
     */
    public String key() {
      if (!name().startsWith("--")) {
        return null;
      }
      String key = name().substring(2);
      return KEY_ALIASES.getOrDefault(key, key);
    }

    <U> Option<U> on(Function<U, T> part) {
      return new Option<>(
          names,
          label,
          help,
          required,
          (u, v) -> set.accept(part.apply(u), v),
          file == null ? null : (u, p) -> file.accept(part.apply(u), p),
          location);
    }
  }

  /**
   * The keys spelt otherwise than their option, by long name: in a {@code serve} section {@code
   * hash} is the hash device, so {@code --hash} is {@code hash-algorithm} there.
   */
  public static final Map<String, String> KEY_ALIASES = Map.of("hash", "hash-algorithm");

  /**
   * One positional parameter.
   *
   * @param label its name in help and messages ({@code DATA})
   * @param help one sentence or a few
   * @param min how many the command line must give: 0 or 1
   * @param many whether more than one may follow (then it is the last parameter)
   * @param set stores one value in the target; may throw {@link BadValue}
   */
  public record Parameter<T>(
      String label, String help, int min, boolean many, BiConsumer<T, String> set) {
    <U> Parameter<U> on(Function<U, T> part) {
      return new Parameter<>(label, help, min, many, (u, v) -> set.accept(part.apply(u), v));
    }
  }

  private final String name;
  private final String summary;
  private final Supplier<T> factory;
  private final List<Option<T>> options = new ArrayList<>();
  private final List<Parameter<T>> parameters = new ArrayList<>();

  private Syntax(String name, String summary, Supplier<T> factory) {
    this.name = name;
    this.summary = summary;
    this.factory = factory;
  }

  /** A command's syntax: {@code factory} makes the object its values are stored in. */
  public static <T> Syntax<T> command(String name, String summary, Supplier<T> factory) {
    return new Syntax<>(name, summary, factory);
  }

  /** Options shared by several commands, for {@link #include}. */
  public static <T> Syntax<T> group() {
    return new Syntax<>(null, null, null);
  }

  /** A flag: {@code names} are comma-separated ({@code "-r, --recursive"}). */
  public Syntax<T> flag(String names, String help, Consumer<T> set) {
    return add(new Option<>(split(names), null, help, false, (t, v) -> set.accept(t), null, false));
  }

  /** An option with a value, named {@code label} in help. */
  public Syntax<T> option(String names, String label, String help, BiConsumer<T, String> set) {
    return add(new Option<>(split(names), label, help, false, set, null, false));
  }

  /**
   * An option whose value names a file ({@link FileName}): relative to the working directory on the
   * command line, to the file's own directory in a config file ({@link #setKey}).
   */
  public Syntax<T> file(String names, String label, String help, BiConsumer<T, Path> set) {
    return add(
        new Option<>(
            split(names),
            label,
            help,
            false,
            (t, v) -> set.accept(t, FileName.parse(v)),
            set,
            false));
  }

  /**
   * An option whose value names a device: a file name, resolved as {@link #file}'s, or a URL
   * ({@link Location}), taken as it is.
   */
  public Syntax<T> location(String names, String label, String help, BiConsumer<T, String> set) {
    return add(
        new Option<>(
            split(names),
            label,
            help,
            false,
            (t, v) -> set.accept(t, Location.parse(v)),
            (t, p) -> set.accept(t, p.toString()),
            true));
  }

  /** An option the command line must give. */
  public Syntax<T> requiredOption(
      String names, String label, String help, BiConsumer<T, String> set) {
    return add(new Option<>(split(names), label, help, true, set, null, false));
  }

  /** The next positional parameter, which must be given. */
  public Syntax<T> parameter(String label, String help, BiConsumer<T, String> set) {
    return add(new Parameter<>(label, help, 1, false, set));
  }

  /** The next positional parameter, which may be left out. */
  public Syntax<T> optionalParameter(String label, String help, BiConsumer<T, String> set) {
    return add(new Parameter<>(label, help, 0, false, set));
  }

  /** The last positional parameters: one or more, each stored in turn. */
  public Syntax<T> parameters(String label, String help, BiConsumer<T, String> set) {
    return add(new Parameter<>(label, help, 1, true, set));
  }

  /**
   * Adds a group's options, storing their values in the part of {@code T} that {@code part} picks.
   */
  public <G> Syntax<T> include(Syntax<G> group, Function<T, G> part) {
    group.options.forEach(o -> add(o.on(part)));
    group.parameters.forEach(p -> add(p.on(part)));
    return this;
  }

  private Syntax<T> add(Option<T> o) {
    for (String n : o.names()) {
      if (option(n) != null) {
        throw new IllegalStateException(name + ": option " + n + " declared twice");
      }
    }
    options.add(o);
    return this;
  }

  private Syntax<T> add(Parameter<T> p) {
    if (!parameters.isEmpty() && parameters.getLast().many()) {
      throw new IllegalStateException(
          name + ": " + p.label() + " after " + parameters.getLast().label() + "...");
    }
    parameters.add(p);
    return this;
  }

  public String name() {
    return name;
  }

  public String summary() {
    return summary;
  }

  public List<Option<T>> options() {
    return List.copyOf(options);
  }

  public List<Parameter<T>> parameters() {
    return List.copyOf(parameters);
  }

  /** The option one of whose names is {@code n}, or null. */
  public Option<T> option(String n) {
    for (Option<T> o : options) {
      if (o.names().contains(n)) {
        return o;
      }
    }
    return null;
  }

  /** The keys of this syntax's options, in declaration order ({@link Option#key}). */
  public List<String> keys() {
    List<String> keys = new ArrayList<>();
    for (Option<T> o : options) {
      if (o.key() != null) {
        keys.add(o.key());
      }
    }
    return List.copyOf(keys);
  }

  /**
   * Stores {@code key = value}, as a config file gives it, in {@code target}: what the option
   * {@code key} names would store. A flag's value is {@link #truth}; a file name is resolved
   * against {@code base}.
   *
   * @return false when no option has that key
   * @throws BadValue when the value is refused, naming the key and the value
   */
  public boolean setKey(T target, String key, String value, Path base) {
    for (Option<T> o : options) {
      if (key.equals(o.key())) {
        try {
          if (!o.takesValue()) {
            if (truth(value)) {
              o.set().accept(target, "");
            }
          } else if (o.location() && Location.isUrl(value)) {
            o.set().accept(target, value); // checked by the option's own Location.parse
          } else if (o.file() != null) {
            o.file().accept(target, base.resolve(FileName.parse(value)));
          } else {
            o.set().accept(target, value);
          }
        } catch (BadValue e) {
          throw e.of(key, value);
        }
        return true;
      }
    }
    return false;
  }

  /**
   * A flag's value in a config file: true/yes/on/1 or false/no/off/0, as nbd-server and systemd
   * accept.
   */
  public static boolean truth(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "on", "1" -> true;
      case "false", "no", "off", "0" -> false;
      default -> throw new BadValue("true or false");
    };
  }

  /**
   * A check's message with the names in its subject (the text before the first ": ", which names
   * what is refused; the value given follows it) spelt as options ({@code --tls}) or as keys
   * ({@code tls}): a check of several values is written once, and each front end names them as they
   * were given to it.
   */
  public String spelt(String message, boolean asOptions) {
    int colon = message.indexOf(": ");
    String subject = colon < 0 ? message : message.substring(0, colon);
    List<String> keys = new ArrayList<>();
    for (Option<T> o : options) {
      if (o.name().startsWith("--")) {
        keys.add(o.name().substring(2));
      }
    }
    keys.sort(Comparator.comparingInt(String::length).reversed());
    for (String key : keys) {
      Pattern p =
          Pattern.compile(
              "(?<![\\w-])" + (asOptions ? "" : "--") + Pattern.quote(key) + "(?![\\w-])");
      subject =
          p.matcher(subject).replaceAll(Matcher.quoteReplacement(asOptions ? "--" + key : key));
    }
    return colon < 0 ? subject : subject + message.substring(colon);
  }

  /**
   * A parsed command line: the target holding the values, and the options given (by {@link
   * Option#name}).
   */
  public record Parsed<T>(T target, Set<String> given) {}

  /**
   * Parses {@code args} (the command name already removed) into a new {@code T}; the options of
   * {@code shared} (the global ones) are accepted too, their values stored in {@code sharedTarget}.
   *
   * @throws UsageException when the command line does not fit this syntax
   * @throws BadValue when a value is refused (the parser adds the option's name and the value)
   */
  public <G> Parsed<T> parse(List<String> args, Syntax<G> shared, G sharedTarget) {
    T target = factory.get();
    Set<String> given = new HashSet<>();
    List<String> positional = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--")) {
        positional.addAll(args.subList(i + 1, args.size()));
        break;
      }
      if (a.startsWith("--")) {
        int eq = a.indexOf('=');
        Bound<?> o = known(eq < 0 ? a : a.substring(0, eq), a, shared, sharedTarget, target);
        if (!o.option().takesValue()) {
          if (eq >= 0) {
            throw new UsageException(
                "option '" + o.option().name() + "' takes no value: '" + a + "'");
          }
          o.store("", given);
        } else if (eq >= 0) {
          o.store(a.substring(eq + 1), given);
        } else {
          o.store(value(args, ++i, o.option()), given);
        }
      } else if (a.startsWith("-") && a.length() > 1) {
        for (int j = 1; j < a.length(); j++) { // a cluster of short options: -rv, -s00
          Bound<?> o = known("-" + a.charAt(j), a, shared, sharedTarget, target);
          if (!o.option().takesValue()) {
            o.store("", given);
          } else {
            o.store(j + 1 < a.length() ? a.substring(j + 1) : value(args, ++i, o.option()), given);
            break;
          }
        }
      } else {
        positional.add(a);
      }
    }
    for (Option<T> o : options) {
      if (o.required() && !given.contains(o.name())) {
        throw new UsageException("missing required option '" + o.name() + "=" + o.label() + "'");
      }
    }
    storeParameters(positional, target);
    return new Parsed<>(target, Set.copyOf(given));
  }

  /** An option and the object its value goes to. */
  private record Bound<X>(Option<X> option, X target) {
    void store(String value, Set<String> given) {
      try {
        option.set().accept(target, value);
      } catch (BadValue e) {
        throw e.of(option.name(), value);
      }
      given.add(option.name());
    }
  }

  private <G> Bound<?> known(String n, String arg, Syntax<G> shared, G sharedTarget, T target) {
    Option<T> o = option(n);
    if (o != null) {
      return new Bound<>(o, target);
    }
    Option<G> g = shared.option(n);
    if (g != null) {
      return new Bound<>(g, sharedTarget);
    }
    throw new UsageException("unknown option '" + (arg.startsWith("--") ? n : arg) + "'");
  }

  private static String value(List<String> args, int i, Option<?> o) {
    if (i >= args.size()) {
      throw new UsageException("option '" + o.name() + "' needs a value (" + o.label() + ")");
    }
    return args.get(i);
  }

  private void storeParameters(List<String> values, T target) {
    int p = 0;
    for (int i = 0; i < values.size(); i++) {
      if (p >= parameters.size()) {
        throw new UsageException(
            "unexpected argument"
                + (values.size() - i > 1 ? "s" : "")
                + " '"
                + String.join("', '", values.subList(i, values.size()))
                + "' ("
                + name
                + " takes "
                + takes()
                + ")");
      }
      Parameter<T> param = parameters.get(p);
      try {
        param.set().accept(target, values.get(i));
      } catch (BadValue e) {
        throw e.of(param.label(), values.get(i));
      }
      if (!param.many()) {
        p++;
      } else if (i == values.size() - 1) {
        p++; // the last of them
      }
    }
    List<String> missing = new ArrayList<>();
    for (; p < parameters.size(); p++) {
      if (parameters.get(p).min() > 0) {
        missing.add("'" + parameters.get(p).label() + "'");
      }
    }
    if (!missing.isEmpty()) {
      throw new UsageException(
          "missing required parameter"
              + (missing.size() > 1 ? "s" : "")
              + " "
              + String.join(", ", missing));
    }
  }

  /** The parameters as help's usage line names them: {@code DATA HASH [ROOT_HASH]}. */
  private String takes() {
    if (parameters.isEmpty()) {
      return "no arguments";
    }
    List<String> words = new ArrayList<>();
    for (Parameter<T> p : parameters) {
      String w = p.label() + (p.many() ? "..." : "");
      words.add(p.min() == 0 ? "[" + w + "]" : w);
    }
    return String.join(" ", words);
  }

  private static List<String> split(String names) {
    return List.of(names.split(",\\s*"));
  }

  /** Adds {@code v} to {@code list}, made when null: for repeatable options and parameters. */
  public static <V> List<V> append(List<V> list, V v) {
    List<V> l = list == null ? new ArrayList<>() : list;
    l.add(v);
    return l;
  }
}
