"""Chinese: the words a claim is denied, stated, listed and turned with."""

from __future__ import annotations

from bot.core.lang.base import Language

LANGUAGE = Language(
    code="zh",
    # Negators, with the words that merely contain them listed out (不同 "different", 无状态
    # "stateless", 是否 "whether", 差不多 "about the same" are not denials); 不仅 adds, it
    # does not deny. 不 after a verb and before 下/动/完/够/住/起 is a potential complement
    # (放不下 "does not fit", 跑不动): it says a limit is hit, which is how references state
    # limits too.
    negation=(
        r"(?<![\u4e00-\u9fff])不(?![同断仅只光但少过久如然停论管足错止均变行])"
        r"|(?<=[\u4e00-\u9fff])(?<!差)不(?![同断仅只光但少过久如然停论管足错止均变行下动完够住起])"
        r"|没(?!过)|未(?!来|知|完成)|无(?![状论损锁服感限穷数]|关紧)|(?<![除常])非(?![常阻线结同对])"
        r"|别(?=[用开再去])|勿|禁止"
    ),
    negation_first="不没未无非别勿禁",
    negating_openers=("而不是", "而非"),
    clause_connectives=tuple(
        "因为 由于 所以 因此 从而 于是 但是 但 不过 然而 而是 而非 而不是 否则 如果 假如 除非 然后 "
        "以便 以免 使得 这样 导致 而且 并且 此外 还有".split()
    ),
    unsure=(
        r"[我俺]\S{0,2}?不太?(?:清楚|知道|确定|了解|懂|记得)|不太(?:清楚|确定|了解|懂|记得)"
        r"|[讲说记]不太?清"
    ),
    avoiding=r"避免|跳过|省去|省掉|免去|无需|不必|防止|禁止",
    # Verbs, copulas, modal and aspect words that say something of a term; the lookarounds
    # skip nouns that contain them (性能 "performance", 用户 "user", 有状态 "stateful").
    predicates=(
        r"是|会(?!话)|(?<![性功智效])能(?![力耗源])|可以|可能|需要|需(?!求)|要(?!求|素|点)|把|被|让"
        r"|将(?!来)|(?<![利费通作应])用(?![户量率])|通过|负责|支持|提供|实现|导致|造成|影响|决定|控制"
        r"|保证|确保|避免|减少|降低|提高|提升|增加|增大|减小|调大|调小|调高|调低|调整|加大|缩小|放大|扩大"
        r"|缩短|适合|适用|表示|意味|代表|包括|包含|采用|调用|执行|运行|处理|生成|计算|加载|卸载|发送|返回"
        r"|传给|传入|写回|读取|放到|放在|交给|拆成|合并|凑|等待|占用|占满|受|限制|取决|依赖|来自|属于|等于"
        r"|相当|对应|就|才|再|先|然后|否则|也|都|还|已|只|直接|自动|分别|各自|同时|按|根据|给|从|到|做"
        r"|让|靠|变|(?<![增追附叠参])加(?![速密权锁])|打(?![包分])|成为|作为|叫|称|指|看|查|扫描|检查"
        r"|管理|调度|编排|触发|开启|关闭|打开|关掉|启用|禁用|设置|设为|配置|切换|扩缩|扩容|缩容|替代|代替"
        r"|取代|转发|分发|缓存|复用|共享|隔离|阻塞|修复|新增|移除|附带|更名|改名|引入|升级|迁移|拆分|切分"
        r"|分配|释放|预留|保存|存放|丢弃|推荐|建议|应该|应当|监控|监测|观测|观察|采集|上报|暴露|记录|统计"
        r"|[两二三四五六七八九几多]种|更|很|太|越|因为|所以|如果|但|而|并|且|即|则|若|当|在(?!线)"
        r"|有(?!状态|效)"
        # Verbs of the fields' answers that the ones above miss ("向量擅长语义", "两者互补").
        r"|擅长|互补|锁住|(?<![释存播开])放(?![弃心])"
    ),
    # Copulas, auxiliaries and function words that no term contains.
    statement=r"是|会(?!话)|可以|需要|要(?!求|素|点)|把|被|让|将(?!来)|就|才|也|都|还|已|只|因为|所以|如果",
    enumeration=r"有哪些|哪些|哪几|哪[两二三四五六]|列举|列出|分别是什么",
    up=r"调大|调高|增大|加大|提高|提升|增加|扩大|升高|变大|放大",
    down=r"调小|调低|减小|降低|减少|缩小|变小",
    # The lookarounds skip words that only contain the character (高级; 提高 is listed whole;
    # 大模型, 最多, 多个).
    poles=(
        (
            "amount",
            r"(?<!提)(?<!最)高(?![级可效阶优频])|(?<!最)大(?![模量规部多致概家型于])"
            r"|(?<![不至最])多(?![个种样卡机节])|增加|增大|提高|提升|上升|变大|变高|变多|加大"
            r"|扩大|升高|翻倍",
            r"(?<!降)低(?![级])|(?<![最大])小(?![时模组型])|(?<![不至最])少(?!量)|减少|减小|降低"
            r"|下降|变小|变低|变少|缩小|缩短|减半|节省|省",
        ),
        ("quality", r"(?<![不])好(?!处|几)|更优", r"(?<![不])差(?!异|别|距)|变差|劣化|恶化"),
        ("speed", r"(?<![不])快(?!照)|加速", r"(?<![不])慢|变慢"),
        (
            "bound",
            r"计算密集|算力瓶颈|瓶颈在算力|受限于算力",
            r"访存密集|带宽瓶颈|瓶颈在带宽|受限于(?:显存)?带宽",
        ),
    ),
    question_negators="不没",
    degree_adverbs=tuple("比较 较 很 更 非常 太 特别 挺 相当 十分".split()),
    graded_adjectives=tuple("多 少 大 小 高 低 快 慢 长 短 强 弱 频繁 密集 明显".split()),
    conjunctions=("和", "与", "及", "以及", "或", "或者"),
    attributive_particles=("的",),
    time_clause_after=r"之后|以后|后(?![端台续缀面者])|的时候|之前|以前",
    negation_closers=(
        r"的时候|时候|(?<![同实及准按定暂超计临何随即当适行译])时(?![间刻延长段序钟区效])"
        r"|之后|以后|就(?![绪近地业])|(?<![规原否准法细守])则|(?<![方随])便(?![宜利捷])"
        r"|(?<![归偿])还|而且|并且|的话|而(?![是非])"
    ),
    # 保证 X 不被替换: what the claim keeps from happening (see base.purpose_clause_openers).
    purpose_clause_openers=r"保证|确保|以免|以防",
    # Up to four characters and 的; not 有/是 (没有 X 的 Y denies Y), nor 真的 or 目的.
    negated_modifier=r"(?![是有])[\u4e00-\u9fff]{1,4}?的(?<!真的)(?<!目的)",
    # Not 要: as often "need to" ("要配 PDB") as "to" ("要看时间线").
    purpose_openers=("想", "为了", "如果想"),
    pronouns=("它", "它们", "其"),
    topic_openers=("而", "但", "但是", "对于", "对", "至于", "其中"),
    comparand_before=r"比|相比|相比于|相较于|相对于|不如",
    comparand_after=r"相比|相比较|比较|比起来|来说更",
    # Adjectives (…的) and verbs that name a phase or a kind (生成阶段, 计算密集) without
    # naming a thing.
    not_names=frozenset(
        """生成 计算 处理 执行 运行 推理 训练 加载 调度 读取 写入 大的 小的 新的 旧的 快的 慢的
        高的 低的 主要 默认 普通 简单 单个 多个 全部 部分""".split()
    ),
    item_separators=("、",),
    stop_chars=frozenset(
        "的了是在和与或把被就也都而及等这那个一不有为以会可能要让从到对其中之它们我你他"
    ),
    generic_words=frozenset(
        """
        一个 一般 不会 不同 东西 两件事 主要 代码 以上 以下 任务 优点 传统
        作用 使用 信息 做法 兜底 关系 关键 其他 具体 内容 内部 初始化 前提
        办法 功能 区别 原则 原因 原理 参考 只是 可以 合理 含义 回答 场合
        场景 基础 处理 外部 多个 大致 大量 定义 实现 实际 对象 小结 少量
        就是 层 层面 工作 工具 左右 差不多 平台 建议 开销 形式 影响 必要
        思路 总结 情况 情形 成本 所有 手段 折中 提供 操作 支持 效果 数据
        数量级 整个 整体 方向 方式 方案 方法 方面 时候 时间 明显 更多 更好
        更进一步 服务 本身 机制 核心 框架 概念 模型 步骤 每个 比较 注意 版本
        特点 环境 目的 相关 相同 种类 程序 空闲 章节 答案 策略 类型 系统
        线上 线下 结果 缺点 能力 能够 自身 角度 设计 足够 过程 还是 这个
        这样 进一步 进行 选择 通常 通过 逻辑 那样 部分 重点 重要 问题 阶段
        需要 面试 面试题 默认
        """.split()
    ),
    question_words=frozenset(
        """
        什么 哪些 哪个 哪几个 哪几 哪种 哪 哪里 如何 怎么 怎样 怎么办 为什么 为何 是否
        能否 有何 有 分别 各自 各 适合 之处 之间 它们 关系 不同 比较 对比 简述 说明 解释
        介绍 谈谈 请 常说
        """.split()
    ),
)
