package io.rubix.bookkeeper.deploy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.rubix.bookkeeper.BookKeeper;
import io.rubix.bookkeeper.BookKeeperConfig;
import io.rubix.bookkeeper.BookKeeperTestSupport;
import io.rubix.bookkeeper.metrics.Exposition;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.yaml.snakeyaml.Yaml;

/**
 * Keeps docker/ and deploy/ true to the code and docs/configuration.md: every file parses, every
 * {@code rubix.*} key they set is documented, the ports they publish are the documented defaults, the
 * Kubernetes objects refer to each other and to RubiX's settings as they must, and the Grafana dashboard
 * queries only metrics a running BookKeeper exports, rates of counters only. Whether each Kubernetes object is valid for its
 * kind (field types, unknown and required fields) is checked against the Kubernetes OpenAPI schemas by
 * deploy/kubernetes/validate/, which .ci/run runs before the build.
 */
class DeploymentFilesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern DOC_ROW = Pattern.compile("^\\| `(rubix\\.[^`]+)` \\| (?:`([^`]*)`|\\(none\\)) \\|");
  /** A rubix.* key anywhere in a file: not a package ({@code io.rubix.x}), a path or a host name part. */
  private static final Pattern KEY = Pattern.compile("(?<![\\w.$/-])rubix\\.[a-z][a-z0-9]*(?:[.-][a-z0-9]+)*(?![\\w/])");
  /** System properties of the scripts' log4j configuration, not configuration keys. */
  private static final Set<String> LOG_PROPERTIES = Set.of("rubix.root.logger", "rubix.log.dir", "rubix.log.file");
  private static final List<String> PORT_KEYS = List.of("rubix.network.bookkeeper.server.port", "rubix.network.transfer.server.port",
      "rubix.bookkeeper.metrics.port");
  private static final Map<String, String> API_VERSIONS = Map.of("Namespace", "v1", "ConfigMap", "v1", "Pod", "v1",
      "DaemonSet", "apps/v1", "Deployment", "apps/v1", "PodDisruptionBudget", "policy/v1");
  private static final Pattern METRIC = Pattern.compile("\\b(rubix_[a-z0-9_]+)\\b");
  /** A metric read through rate() or increase(), with or without a label selector. */
  private static final Pattern RATE = Pattern.compile("\\b(?:rate|irate|increase)\\((rubix_[a-z0-9_]+)");

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path cacheDir;

  private static Map<String, String> documentedKeys() throws IOException {
    Map<String, String> keys = new LinkedHashMap<>();
    for (String line : Files.readAllLines(ROOT.resolve("docs/configuration.md"), UTF_8)) {
      Matcher row = DOC_ROW.matcher(line);
      if (row.find()) {
        keys.put(row.group(1), row.group(2));
      }
    }
    return keys;
  }

  private static boolean documented(Map<String, String> documented, String key) {
    return documented.containsKey(key) || documented.keySet().stream()
        .filter(k -> k.contains("<"))
        .anyMatch(k -> key.matches(Pattern.quote(k).replaceAll("<[^>]+>", "\\\\E[a-z0-9]+\\\\Q")));
  }

  private static Set<Integer> documentedPorts() throws IOException {
    Map<String, String> documented = documentedKeys();
    return PORT_KEYS.stream().map(k -> Integer.parseInt(documented.get(k))).collect(Collectors.toCollection(TreeSet::new));
  }

  private static List<Path> deploymentFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    for (String dir : List.of("docker", "deploy")) {
      try (Stream<Path> walk = Files.walk(ROOT.resolve(dir))) {
        walk.filter(Files::isRegularFile).filter(f -> !installed(f)).sorted().forEach(files::add);
      }
    }
    return files;
  }

  /** Packages npm installs for the scripts under deploy/ (the schema validator, the dashboard renderer). */
  private static boolean installed(Path file) {
    return ROOT.relativize(file).toString().replace('\\', '/').contains("/node_modules/");
  }

  @Test
  void everyRubixKeyTheDeploymentFilesSetIsDocumented() throws IOException {
    Map<String, String> documented = documentedKeys();
    assertThat(documented).hasSizeGreaterThan(50).containsKeys(PORT_KEYS.toArray(String[]::new));
    Map<String, Set<String>> undocumented = new LinkedHashMap<>();
    int found = 0;
    for (Path file : deploymentFiles()) {
      // Spark passes spark.hadoop.* on to Hadoop without the prefix; -Dkey=value overrides
      Matcher key = KEY.matcher(Files.readString(file, UTF_8).replace("spark.hadoop.rubix.", " rubix.").replace("-Drubix.", " rubix."));
      while (key.find()) {
        found++;
        if (!LOG_PROPERTIES.contains(key.group()) && !documented(documented, key.group())) {
          undocumented.computeIfAbsent(ROOT.relativize(file).toString(), f -> new TreeSet<>()).add(key.group());
        }
      }
    }
    assertThat(found).as("rubix.* keys found in docker/ and deploy/").isGreaterThan(30);
    assertThat(undocumented).as("keys missing from docs/configuration.md, per file").isEmpty();
  }

  @Test
  void xmlConfigurationFilesParse() throws Exception {
    Map<String, String> documented = documentedKeys();
    List<Path> xml = deploymentFiles().stream().filter(f -> f.toString().endsWith(".xml")).toList();
    assertThat(xml).hasSizeGreaterThanOrEqualTo(4);
    for (Path file : xml) {
      for (String name : propertyNames(Files.readString(file, UTF_8))) {
        assertThat(name.startsWith("rubix.") ? documented(documented, name) : name.startsWith("fs."))
            .as("%s sets %s", file, name).isTrue();
      }
    }
  }

  private static List<String> propertyNames(String xml) throws Exception {
    Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
    assertThat(document.getDocumentElement().getTagName()).isEqualTo("configuration");
    NodeList names = document.getElementsByTagName("name");
    List<String> result = new ArrayList<>();
    for (int i = 0; i < names.getLength(); i++) {
      result.add(names.item(i).getTextContent().strip());
    }
    return result;
  }

  /** The Dockerfile's instructions, continuation lines joined, comments dropped: keyword and arguments. */
  private static List<String[]> dockerfile() throws IOException {
    List<String[]> instructions = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : Files.readAllLines(ROOT.resolve("docker/Dockerfile"), UTF_8)) {
      String text = line.strip();
      if (text.startsWith("#") || (text.isEmpty() && current.isEmpty())) {
        continue;
      }
      if (text.endsWith("\\")) {
        current.append(text, 0, text.length() - 1).append(' ');
        continue;
      }
      current.append(text);
      String[] parts = current.toString().split("\\s+", 2);
      instructions.add(new String[] {parts[0].toUpperCase(Locale.ROOT), parts.length > 1 ? parts[1] : ""});
      current.setLength(0);
    }
    return instructions;
  }

  private static List<String> arguments(List<String[]> instructions, String keyword) {
    return instructions.stream().filter(i -> i[0].equals(keyword)).map(i -> i[1]).toList();
  }

  @Test
  void dockerfileExposesTheDocumentedPortsRunsAsRubixAndChecksHealth() throws Exception {
    List<String[]> instructions = dockerfile();
    assertThat(instructions.get(0)[0]).isEqualTo("ARG");
    assertThat(instructions.get(0)[1]).startsWith("BASE_IMAGE=").doesNotContain("localhost");
    assertThat(arguments(instructions, "FROM")).containsExactly("${BASE_IMAGE}");
    Set<Integer> exposed = arguments(instructions, "EXPOSE").stream().flatMap(a -> Stream.of(a.split("\\s+")))
        .map(Integer::parseInt).collect(Collectors.toCollection(TreeSet::new));
    assertThat(exposed).as("EXPOSE against the documented default ports").isEqualTo(documentedPorts());
    assertThat(arguments(instructions, "USER")).containsExactly("rubix:rubix");
    assertThat(arguments(instructions, "HEALTHCHECK")).singleElement().asString().contains("CMD [\"/opt/rubix/docker/healthcheck.sh\"]");
    assertThat(arguments(instructions, "ENTRYPOINT")).containsExactly("[\"/opt/rubix/docker/entrypoint.sh\"]");
    // the image's own rubix-site.xml caches in the directory the image declares as its volume
    String cacheDirs = propertyValue(Files.readString(ROOT.resolve("docker/rubix-site.xml"), UTF_8), "rubix.cache.dirs");
    assertThat(arguments(instructions, "VOLUME")).containsExactly("[\"" + cacheDirs + "\"]");
    assertThat(arguments(instructions, "RUN")).singleElement().asString().contains("install -d -o rubix -g rubix -m 2770 " + cacheDirs);
    for (String copy : arguments(instructions, "COPY")) {
      List<String> sources = new ArrayList<>(List.of(copy.split("\\s+")));
      sources.removeIf(s -> s.startsWith("--"));
      for (String source : sources.subList(0, sources.size() - 1)) {
        if (!source.contains("${")) {
          assertThat(ROOT.resolve(source)).as("COPY source").exists();
        }
      }
    }
    assertThat(ROOT.resolve("docker/entrypoint.sh")).isExecutable();
    assertThat(ROOT.resolve("docker/healthcheck.sh")).isExecutable();
    assertThat(ROOT.resolve("docker/build-base.sh")).isExecutable();
    assertThat(Files.readString(ROOT.resolve(".dockerignore"), UTF_8)).contains("!docker/", "!rubix-bookkeeper/target/rubix-*/");
  }

  private static String propertyValue(String xml, String key) throws Exception {
    Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
    NodeList properties = document.getElementsByTagName("property");
    for (int i = 0; i < properties.getLength(); i++) {
      Element property = (Element) properties.item(i);
      if (property.getElementsByTagName("name").item(0).getTextContent().strip().equals(key)) {
        return property.getElementsByTagName("value").item(0).getTextContent().strip();
      }
    }
    throw new AssertionError("no " + key);
  }

  @Test
  void composeFileParsesAndItsBookKeepersUseTheDocumentedPortsAndKeys() throws IOException {
    Map<String, String> documented = documentedKeys();
    JsonNode compose = JSON.valueToTree(new Yaml().load(Files.readString(ROOT.resolve("docker/compose.yaml"), UTF_8)));
    JsonNode services = compose.path("services");
    assertThat(services.isObject()).isTrue();
    List<String> bookKeepers = new ArrayList<>();
    services.properties().forEach(service -> {
      assertThat(service.getValue().path("image").asText()).as("image of %s", service.getKey()).isNotBlank();
      if (service.getValue().has("expose")) {
        bookKeepers.add(service.getKey());
      }
    });
    assertThat(bookKeepers).containsExactly("bk1", "bk2", "bk3");
    Set<Integer> ports = documentedPorts();
    for (String name : bookKeepers) {
      JsonNode service = services.path(name);
      Set<Integer> exposed = new TreeSet<>();
      service.path("expose").forEach(p -> exposed.add(Integer.parseInt(p.asText())));
      assertThat(exposed).as("ports of %s", name).isEqualTo(ports);
      assertThat(service.path("healthcheck").path("test").toString()).contains("/opt/rubix/docker/healthcheck.sh");
      Map<String, String> overrides = overrides(service.path("environment").path("RUBIX_OVERRIDES").asText());
      assertThat(overrides).as("RUBIX_OVERRIDES of %s", name).containsEntry("rubix.cluster.node.id", name);
      overrides.keySet().forEach(key -> assertThat(documented(documented, key)).as("%s in %s", key, name).isTrue());
      assertThat(service.path("volumes").toString()).contains("cache-" + name + ":/var/cache/rubix");
    }
    // the cluster the BookKeepers are configured with is the set of BookKeeper services
    String site = Files.readString(ROOT.resolve("docker/compose/rubix/rubix-site.xml"), UTF_8);
    assertThat(site).contains("<name>rubix.cluster.nodes</name><value>" + String.join(",", bookKeepers) + "</value>");
    // bind mounts point at files and modules of the repository
    services.properties().forEach(service -> service.getValue().path("volumes").forEach(volume -> {
      String source = volume.asText().split(":")[0];
      if (source.startsWith(".")) {
        // build output (module/target) exists only after a build: its module must exist
        String file = source.endsWith("/target") ? source.substring(0, source.length() - "/target".length()) : source;
        assertThat(ROOT.resolve("docker").resolve(file).normalize()).as("volume of %s", service.getKey()).exists();
      }
    }));
  }

  private static Map<String, String> overrides(String value) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String setting : value.strip().split("\\s+")) {
      assertThat(setting).startsWith("-D").contains("=");
      settings.put(setting.substring(2, setting.indexOf('=')), setting.substring(setting.indexOf('=') + 1));
    }
    return settings;
  }

  private static List<JsonNode> kubernetesObjects() throws IOException {
    List<JsonNode> objects = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(ROOT.resolve("deploy/kubernetes"))) {
      for (Path file : walk.filter(f -> f.toString().endsWith(".yaml") && !installed(f)).sorted().toList()) {
        for (Object document : new Yaml().loadAll(Files.readString(file, UTF_8))) {
          objects.add(JSON.valueToTree(document));
        }
      }
    }
    return objects;
  }

  @Test
  void kubernetesManifestsFitTogetherAndWithTheDocumentedSettings() throws Exception {
    List<JsonNode> objects = kubernetesObjects();
    Map<String, JsonNode> byKind = new HashMap<>();
    for (JsonNode object : objects) {
      String kind = object.path("kind").asText();
      assertThat(API_VERSIONS).as("kinds with a known apiVersion").containsKey(kind);
      assertThat(object.path("apiVersion").asText()).as("apiVersion of %s", kind).isEqualTo(API_VERSIONS.get(kind));
      if (!kind.equals("Pod")) {
        assertThat(object.path("metadata").path("name").asText()).as("metadata.name of a %s", kind).isNotBlank();
      }
      byKind.putIfAbsent(kind + "/" + object.path("metadata").path("name").asText(), object);
    }
    JsonNode daemonSet = byKind.get("DaemonSet/rubix-bookkeeper");
    assertThat(daemonSet).isNotNull();
    JsonNode template = daemonSet.path("spec").path("template");
    JsonNode selector = daemonSet.path("spec").path("selector").path("matchLabels");
    selector.properties().forEach(label ->
        assertThat(template.path("metadata").path("labels").path(label.getKey()).asText()).isEqualTo(label.getValue().asText()));
    Map<String, String> documented = documentedKeys();
    JsonNode annotations = template.path("metadata").path("annotations");
    assertThat(annotations.path("prometheus.io/scrape").asText()).isEqualTo("true");
    assertThat(annotations.path("prometheus.io/port").asText()).isEqualTo(documented.get("rubix.bookkeeper.metrics.port"));
    assertThat(annotations.path("prometheus.io/path").asText()).isEqualTo("/metrics");

    ArrayNode containers = (ArrayNode) template.path("spec").path("containers");
    assertThat(containers).hasSize(1);
    JsonNode bookKeeper = containers.get(0);
    assertThat(bookKeeper.path("image").asText()).isNotBlank();
    Map<String, Integer> ports = new LinkedHashMap<>();
    bookKeeper.path("ports").forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
    assertThat(ports).containsExactly(Map.entry("thrift", port(documented, PORT_KEYS.get(0))),
        Map.entry("transfer", port(documented, PORT_KEYS.get(1))), Map.entry("metrics", port(documented, PORT_KEYS.get(2))));
    for (String probe : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
      assertThat(bookKeeper.has(probe)).as(probe).isTrue();
      JsonNode tcpPort = bookKeeper.path(probe).path("tcpSocket").path("port");
      if (!tcpPort.isMissingNode()) {
        assertThat(ports).containsValue(tcpPort.asInt());
      }
    }
    assertThat(bookKeeper.path("livenessProbe").path("exec").path("command").toString()).contains("/opt/rubix/docker/healthcheck.sh");
    assertThat(bookKeeper.path("resources").path("limits").path("memory").asText()).isNotBlank();
    assertThat(bookKeeper.path("resources").path("requests").path("cpu").asText()).isNotBlank();
    String overrides = "";
    for (JsonNode env : bookKeeper.path("env")) {
      if (env.path("name").asText().equals("RUBIX_OVERRIDES")) {
        overrides = env.path("value").asText();
      }
    }
    overrides(overrides).keySet().forEach(key -> assertThat(documented(documented, key)).as(key).isTrue());
    assertThat(template.path("spec").path("securityContext").path("runAsUser").asInt()).isEqualTo(1899);

    // volumes: the ConfigMap exists, hostPath cache directories are mounted at their host path, as engines mount them
    Map<String, JsonNode> volumes = new LinkedHashMap<>();
    template.path("spec").path("volumes").forEach(v -> volumes.put(v.path("name").asText(), v));
    bookKeeper.path("volumeMounts").forEach(mount -> assertThat(volumes).containsKey(mount.path("name").asText()));
    JsonNode configMap = byKind.get("ConfigMap/" + volumes.get("conf").path("configMap").path("name").asText());
    assertThat(configMap).as("the ConfigMap the DaemonSet mounts").isNotNull();
    String site = configMap.path("data").path("rubix-site.xml").asText();
    for (String name : propertyNames(site)) {
      assertThat(documented(documented, name)).as("ConfigMap key %s", name).isTrue();
    }
    propertyNames(configMap.path("data").path("core-site.xml").asText());
    Set<String> hostPaths = new LinkedHashSet<>();
    volumes.values().stream().filter(v -> v.has("hostPath")).forEach(v -> hostPaths.add(v.path("hostPath").path("path").asText()));
    assertThat(String.join(",", hostPaths)).isEqualTo(propertyValue(site, "rubix.cache.dirs"));
    bookKeeper.path("volumeMounts").forEach(mount -> {
      JsonNode volume = volumes.get(mount.path("name").asText());
      if (volume.has("hostPath")) {
        assertThat(mount.path("mountPath").asText()).isEqualTo(volume.path("hostPath").path("path").asText());
      }
    });

    JsonNode budget = byKind.get("PodDisruptionBudget/rubix-bookkeeper");
    assertThat(budget.path("spec").path("selector").path("matchLabels")).isEqualTo(selector);

    // engine pods: the same host paths, the rubix group, the node address from the downward API
    for (JsonNode object : objects) {
      JsonNode podSpec = object.path("kind").asText().equals("Pod") ? object.path("spec") : object.path("spec").path("template").path("spec");
      if (object.path("kind").asText().equals("DaemonSet") || podSpec.isMissingNode()) {
        continue;
      }
      assertThat(podSpec.path("securityContext").path("supplementalGroups").toString()).contains("1899");
      podSpec.path("volumes").forEach(v -> {
        if (v.has("hostPath")) {
          assertThat(hostPaths).contains(v.path("hostPath").path("path").asText());
        }
      });
      assertThat(podSpec.path("containers").toString()).contains("status.hostIP", "RUBIX_HOST_IP");
    }
  }

  private static int port(Map<String, String> documented, String key) {
    return Integer.parseInt(documented.get(key));
  }

  @Test
  void grafanaDashboardQueriesOnlyMetricsTheBookKeeperExports() throws Exception {
    Path dashboard = ROOT.resolve("deploy/grafana/rubix-bookkeeper.json");
    JsonNode json = JSON.readTree(dashboard.toFile());
    Set<String> queried = new TreeSet<>();
    Stream.concat(json.findValues("expr").stream(), json.findValues("definition").stream()).forEach(expr -> {
      Matcher metric = METRIC.matcher(expr.asText());
      while (metric.find()) {
        queried.add(metric.group(1));
      }
    });
    assertThat(queried).as("metrics the dashboard queries").hasSizeGreaterThan(10);

    Map<String, Exposition.Family> exported;
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(BookKeeperTestSupport.daemonConf(cacheDir)))) {
      exported = Exposition.scrape(bookKeeper.metricsPort()).families();
    }
    assertThat(exported).containsKeys("rubix_cache_disk_used_bytes", "rubix_cache_evictions_total");
    // rate() and increase() only over counters, and no counter read as a level
    Stream.concat(json.findValues("expr").stream(), json.findValues("definition").stream()).forEach(expr -> {
      Matcher rate = RATE.matcher(expr.asText());
      while (rate.find()) {
        assertThat(exported.get(rate.group(1))).as("%s in %s", rate.group(1), expr.asText()).isNotNull()
            .extracting(Exposition.Family::type).isEqualTo("counter");
      }
    });
    assertThat(exported.keySet()).as("metrics a running BookKeeper exports").containsAll(queried);
  }
}
